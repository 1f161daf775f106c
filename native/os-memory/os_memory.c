/*
 * Two ways for the daemon to hand memory back to the system that Node does not offer
 * (docs/configuration.md, "Memory"); each is exported only where the system has it, and the
 * daemon treats a missing one as absent.
 *
 * trimMalloc(): glibc's malloc_trim(0), which returns the free pages inside every malloc arena,
 * not only the free space at an arena's top that glibc gives back on its own. Returns whether any
 * memory was released.
 *
 * dropSharedFilePages(suffix): madvise(MADV_DONTNEED) over every shared file mapping of this
 * process whose path ends with `suffix` (LMDB's data.mdb). For a shared mapping this only removes
 * the pages from the process's page tables: they stay in the kernel's page cache, and the next
 * read maps them again without any disk I/O. Private and anonymous mappings are never touched,
 * so no data can be lost. Returns how many mappings were dropped.
 */
#include <stdlib.h>
#include <node_api.h>
#ifdef __GLIBC__
#include <malloc.h>

static napi_value trim_malloc(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value released;
  napi_get_boolean(env, malloc_trim(0) == 1, &released);
  return released;
}
#endif

#ifdef __linux__
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static napi_value drop_shared_file_pages(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value arg;
  char suffix[256];
  size_t suffix_length = 0;
  napi_get_cb_info(env, info, &argc, &arg, NULL, NULL);
  if (argc < 1 ||
      napi_get_value_string_utf8(env, arg, suffix, sizeof suffix, &suffix_length) != napi_ok ||
      suffix_length == 0) {
    napi_throw_type_error(env, NULL, "dropSharedFilePages needs the end of a file path");
    return NULL;
  }
  int dropped = 0;
  FILE *maps = fopen("/proc/self/maps", "r");
  if (maps != NULL) {
    char line[4352];
    while (fgets(line, sizeof line, maps) != NULL) {
      unsigned long start, end;
      char perms[5];
      int path_at = 0;
      if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &start, &end, perms, &path_at) < 3 ||
          perms[3] != 's' || path_at == 0)
        continue;
      size_t length = strcspn(line + path_at, "\n");
      if (length < suffix_length ||
          memcmp(line + path_at + length - suffix_length, suffix, suffix_length) != 0)
        continue;
      if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) dropped += 1;
    }
    fclose(maps);
  }
  napi_value result;
  napi_create_int32(env, dropped, &result);
  return result;
}
#endif

static void export_function(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value function;
  if (napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &function) == napi_ok)
    napi_set_named_property(env, exports, name, function);
}

static napi_value init(napi_env env, napi_value exports) {
#ifdef __GLIBC__
  export_function(env, exports, "trimMalloc", trim_malloc);
#endif
#ifdef __linux__
  export_function(env, exports, "dropSharedFilePages", drop_shared_file_pages);
#endif
  (void)export_function;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
