{
  "targets": [
    {
      "target_name": "os_memory",
      "sources": ["os_memory.c"]
    }
  ]
}
