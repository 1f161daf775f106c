{
  "targets": [
    {
      "target_name": "chunk_io",
      "sources": ["chunk_io.c"]
    }
  ]
}
