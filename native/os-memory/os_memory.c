/*
 * A way for the daemon to hand memory back to the system that Node does not offer
 * (docs/configuration.md, "Memory"); exported only where the system has it, and the daemon
 * treats a missing one as absent.
 *
 * trimMalloc(): glibc's malloc_trim(0), which returns the free pages inside every malloc arena,
 * not only the free space at an arena's top that glibc gives back on its own. Returns whether any
 * memory was released.
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

static void export_function(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value function;
  if (napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &function) == napi_ok)
    napi_set_named_property(env, exports, name, function);
}

static napi_value init(napi_env env, napi_value exports) {
#ifdef __GLIBC__
  export_function(env, exports, "trimMalloc", trim_malloc);
#endif
  (void)export_function;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
