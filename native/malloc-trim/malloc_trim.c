/*
 * trim(): glibc's malloc_trim(0), which returns to the system the free pages inside every malloc
 * arena, not only the free space at an arena's top that glibc gives back on its own. Returns
 * whether any memory was released. Without glibc (musl, macOS) the function is not exported,
 * and the daemon treats the addon as absent.
 */
#include <stdlib.h>
#include <node_api.h>
#ifdef __GLIBC__
#include <malloc.h>

static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value released;
  napi_get_boolean(env, malloc_trim(0) == 1, &released);
  return released;
}
#endif

static napi_value init(napi_env env, napi_value exports) {
#ifdef __GLIBC__
  napi_value function;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &function) == napi_ok)
    napi_set_named_property(env, exports, "trim", function);
#else
  (void)env;
#endif
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
