/*
 * A storage volume's chunk work done on libuv's thread pool in one job each, reading the
 * caller's buffer in place (docs/storage.md, "Transfers"; docs/benchmarks.md):
 *
 * sha256Hex(bytes) -> Promise<string>: the hex SHA-256 of the bytes, with OpenSSL's SHA256 from
 *   the node binary. WebCrypto's digest copies its input on the event loop first.
 * writeReplica(temp, final, bytes, direct) -> Promise<void>: creates `temp` (O_DIRECT when
 *   `direct`), writes every byte, fsyncs, closes and renames it to `final`: five round trips to
 *   the pool through node:fs. On failure `temp` is removed and the promise is rejected with an
 *   Error whose `code` is the errno's name (ENOENT, EINVAL, ENOSPC, ...) and whose `syscall`
 *   names the step that failed.
 * readReplica(path, into, maxBytes = into.length) -> Promise<{bytesRead, offset, sha256Hex} |
 *   undefined>: opens `path` without blocking on a FIFO, reads at most `maxBytes` bytes into
 *   `into` from `offset` on (none when it is not a regular file) and hashes what it read: node:fs
 *   takes four trips to the pool (open, fstat, read, close) and the hash a fifth. Bytes the page
 *   cache holds are copied from it; others are read past it (O_DIRECT) when `into` has room for
 *   whole 4 KiB blocks from a 4 KiB boundary (maxBytes rounded up, plus 4 KiB), which is where
 *   `offset` then points: a cold read then costs no copy and fills no cache. (Whether the cache
 *   holds them is asked with mincore; a mapping that cannot be made counts as cached.) A file system that
 *   refuses that is read through the cache. Undefined when there is no such file (ENOENT,
 *   ENOTDIR); other failures reject as writeReplica's do.
 * markTopDirectory(path) -> boolean: sets the directory's "top of a hierarchy" attribute
 *   (FS_TOPDIR_FL, `chattr +T`), so that ext2/3/4 spread the directories made in it over the
 *   file system's block groups as they do at the root, and with them the inodes of the files made
 *   in those. Synchronous (one open and two ioctls); false where the file system or the platform
 *   has no such attribute, or the directory cannot be opened.
 *
 * The caller keeps the bytes unchanged until the promise settles; the job holds a reference to
 * them so they are not collected meanwhile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/ioctl.h>
#include <linux/fs.h>
#endif
#include <node_api.h>
#include <openssl/sha.h>
#include <uv.h>

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref bytes_ref;
  const unsigned char *bytes;
  size_t length;
  /* sha256Hex, readReplica */
  unsigned char digest[SHA256_DIGEST_LENGTH];
  /* readReplica: at most `length` bytes into `bytes + offset`, of `room` bytes from `bytes` */
  size_t room;
  size_t bytes_read;
  size_t offset;
  int missing;
  /* the file opened: writeReplica's temporary, readReplica's replica */
  char *path;
  /* writeReplica */
  char *final_path;
  int direct;
  /* writeReplica, readReplica: the errno of the step that failed */
  int error;
  const char *syscall;
} job_t;

static void free_job(napi_env env, job_t *job) {
  if (job->bytes_ref) napi_delete_reference(env, job->bytes_ref);
  if (job->work) napi_delete_async_work(env, job->work);
  free(job->path);
  free(job->final_path);
  free(job);
}

static char *string_arg(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char *text = malloc(length + 1);
  if (text && napi_get_value_string_utf8(env, value, text, length + 1, &length) != napi_ok) {
    free(text);
    return NULL;
  }
  return text;
}

/* Takes the bytes of a typed array (a Buffer) and a reference that keeps it alive. */
static int bytes_arg(napi_env env, napi_value value, job_t *job) {
  napi_typedarray_type type;
  size_t length;
  void *data;
  if (napi_get_typedarray_info(env, value, &type, &length, &data, NULL, NULL) != napi_ok ||
      type != napi_uint8_array)
    return 0;
  job->bytes = data;
  job->length = length;
  return napi_create_reference(env, value, 1, &job->bytes_ref) == napi_ok;
}

/* The call's arguments (at most *argc, which becomes how many came) and a zeroed job; NULL,
 * with an exception pending, when memory ran out. */
static job_t *new_job(napi_env env, napi_callback_info info, size_t *argc, napi_value *argv) {
  napi_get_cb_info(env, info, argc, argv, NULL, NULL);
  job_t *job = calloc(1, sizeof *job);
  if (!job) napi_throw_error(env, "ENOMEM", "out of memory");
  return job;
}

static napi_value start(napi_env env, job_t *job, const char *name, napi_async_execute_callback execute,
                        napi_async_complete_callback complete) {
  napi_value promise, resource_name;
  napi_create_promise(env, &job->deferred, &promise);
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name);
  napi_create_async_work(env, NULL, resource_name, execute, complete, job, &job->work);
  napi_queue_async_work(env, job->work);
  return promise;
}

static napi_value fail_arguments(napi_env env, job_t *job, const char *message) {
  free_job(env, job);
  napi_throw_type_error(env, "ERR_INVALID_ARG_TYPE", message);
  return NULL;
}

/* Rejects the job's promise with an Error of `message`, with `code` and `syscall` when given. */
static void reject(napi_env env, job_t *job, const char *code, const char *message,
                   const char *syscall) {
  napi_value code_value = NULL, message_value, error;
  if (code) napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &code_value);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &message_value);
  napi_create_error(env, code_value, message_value, &error);
  if (syscall) {
    napi_value syscall_value;
    napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &syscall_value);
    napi_set_named_property(env, error, "syscall", syscall_value);
  }
  napi_reject_deferred(env, job->deferred, error);
}

/* ---- sha256Hex ---- */

static void hash_execute(napi_env env, void *data) {
  (void)env;
  job_t *job = data;
  SHA256(job->bytes, job->length, job->digest);
}

static void hex_digest(const job_t *job, char hex[SHA256_DIGEST_LENGTH * 2]) {
  static const char digits[] = "0123456789abcdef";
  for (int n = 0; n < SHA256_DIGEST_LENGTH; n++) {
    hex[2 * n] = digits[job->digest[n] >> 4];
    hex[2 * n + 1] = digits[job->digest[n] & 15];
  }
}

static void hash_complete(napi_env env, napi_status status, void *data) {
  job_t *job = data;
  char hex[SHA256_DIGEST_LENGTH * 2];
  hex_digest(job, hex);
  napi_value result;
  if (status == napi_ok && napi_create_string_latin1(env, hex, sizeof hex, &result) == napi_ok)
    napi_resolve_deferred(env, job->deferred, result);
  else
    reject(env, job, NULL, "sha256Hex was cancelled", NULL);
  free_job(env, job);
}

static napi_value sha256_hex(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  job_t *job = new_job(env, info, &argc, argv);
  if (!job) return NULL;
  if (argc < 1 || !bytes_arg(env, argv[0], job))
    return fail_arguments(env, job, "sha256Hex(bytes): bytes must be a Uint8Array");
  return start(env, job, "sha256Hex", hash_execute, hash_complete);
}

/* ---- writeReplica ---- */

static void write_execute(napi_env env, void *data) {
  (void)env;
  job_t *job = data;
  int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
#ifdef O_DIRECT
  if (job->direct) flags |= O_DIRECT;
#endif
  int fd = open(job->path, flags, 0666);
  if (fd < 0) {
    job->error = errno;
    job->syscall = "open";
    return;
  }
  size_t written = 0;
  while (written < job->length) {
    ssize_t n = pwrite(fd, job->bytes + written, job->length - written, (off_t)written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      /* A regular file takes at least one byte per call; none taken would loop forever. */
      job->error = n < 0 ? errno : EIO;
      job->syscall = "write";
      break;
    }
    written += (size_t)n;
  }
  if (!job->error && fsync(fd) != 0) {
    job->error = errno;
    job->syscall = "fsync";
  }
  if (close(fd) != 0 && !job->error) {
    job->error = errno;
    job->syscall = "close";
  }
  if (!job->error && rename(job->path, job->final_path) != 0) {
    job->error = errno;
    job->syscall = "rename";
  }
  if (job->error) unlink(job->path);
}

static void resolve_undefined(napi_env env, job_t *job) {
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  napi_resolve_deferred(env, job->deferred, undefined);
}

/* Rejects with the job's errno (ECANCELED when the job never ran) named as node:fs names it. */
static void reject_errno(napi_env env, napi_status status, job_t *job, const char *function) {
  int code = status == napi_ok ? job->error : ECANCELED;
  const char *syscall = job->syscall ? job->syscall : function;
  const char *name = uv_err_name(uv_translate_sys_error(code));
  char text[PATH_MAX + 128];
  snprintf(text, sizeof text, "%s: %s, %s '%s'", name, strerror(code), syscall, job->path);
  reject(env, job, name, text, syscall);
}

static void write_complete(napi_env env, napi_status status, void *data) {
  job_t *job = data;
  if (status == napi_ok && !job->error)
    resolve_undefined(env, job);
  else
    reject_errno(env, status, job, "writeReplica");
  free_job(env, job);
}

static napi_value write_replica(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  job_t *job = new_job(env, info, &argc, argv);
  if (!job) return NULL;
  bool direct = false;
  if (argc < 4 || !(job->path = string_arg(env, argv[0])) ||
      !(job->final_path = string_arg(env, argv[1])) || !bytes_arg(env, argv[2], job) ||
      napi_get_value_bool(env, argv[3], &direct) != napi_ok)
    return fail_arguments(
        env, job, "writeReplica(temp, final, bytes, direct): two paths, a Uint8Array and a boolean");
  job->direct = direct;
  return start(env, job, "writeReplica", write_execute, write_complete);
}

/* ---- readReplica ---- */

#define DIRECT_BLOCK 4096

static size_t whole_blocks(size_t bytes) {
  return (bytes + DIRECT_BLOCK - 1) & ~(size_t)(DIRECT_BLOCK - 1);
}

/* Up to `wanted` bytes from the file's start into `into`; 0 or the errno of a failed read. */
static int read_cached(int fd, unsigned char *into, size_t wanted, size_t *got) {
  *got = 0;
  while (*got < wanted) {
    ssize_t n = pread(fd, into + *got, wanted - *got, (off_t)*got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) break;
    *got += (size_t)n;
  }
  return 0;
}

/*
 * Up to `wanted` bytes past the page cache into `into` (on a block boundary, with room for
 * whole blocks); 0, the errno of a failed read, or -1 when the file system refuses O_DIRECT.
 * Dirty cached pages of the file are written back by the kernel before it reads.
 */
static int read_direct(int fd, unsigned char *into, size_t wanted, size_t *got) {
#ifdef O_DIRECT
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_DIRECT) != 0) return -1;
  size_t span = whole_blocks(wanted);
  int result = 0;
  *got = 0;
  while (*got < wanted) {
    ssize_t n = pread(fd, into + *got, span - *got, (off_t)*got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      result = errno == EINVAL ? -1 : errno;
      break;
    }
    *got += (size_t)n;
    /* The end of the file: a read that stops inside a block. */
    if (n == 0 || *got % DIRECT_BLOCK != 0) break;
  }
  fcntl(fd, F_SETFL, flags);
  if (*got > wanted) *got = wanted;
  return result;
#else
  (void)fd;
  (void)into;
  (void)wanted;
  (void)got;
  return -1;
#endif
}

/*
 * Whether the page cache holds every page of the file's first `wanted` bytes. Asked with
 * mincore over a mapping that is never touched: a read with RWF_NOWAIT would answer too, but
 * starts the readahead of what it lacks, which the read past the cache then reads again.
 */
static int all_cached(int fd, size_t wanted) {
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) return 1;
  void *map = mmap(NULL, wanted, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return 1;
  size_t pages = (wanted + (size_t)page - 1) / (size_t)page;
  unsigned char *resident = malloc(pages);
  int cached = resident == NULL || mincore(map, wanted, resident) != 0;
  if (!cached) {
    cached = 1;
    for (size_t n = 0; n < pages && cached; n++) cached = resident[n] & 1;
  }
  free(resident);
  munmap(map, wanted);
  return cached;
}

static void read_replica_bytes(job_t *job, int fd, size_t wanted) {
  unsigned char *start = (unsigned char *)job->bytes;
  size_t pad = (DIRECT_BLOCK - (uintptr_t)start % DIRECT_BLOCK) % DIRECT_BLOCK;
  int result = -1;
  if (wanted > 0 && pad + whole_blocks(wanted) <= job->room) {
    job->offset = pad;
    result = all_cached(fd, wanted) ? read_cached(fd, start + pad, wanted, &job->bytes_read)
                                    : read_direct(fd, start + pad, wanted, &job->bytes_read);
  }
  if (result == -1) {
    job->offset = 0;
    result = read_cached(fd, start, wanted, &job->bytes_read);
  }
  if (result > 0) {
    job->error = result;
    job->syscall = "read";
  }
}

static void read_execute(napi_env env, void *data) {
  (void)env;
  job_t *job = data;
  /* Non-blocking, so a FIFO put in a replica's place cannot hold a pool thread. */
  int fd = open(job->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) job->missing = 1;
    else {
      job->error = errno;
      job->syscall = "open";
    }
    return;
  }
  struct stat stats;
  if (fstat(fd, &stats) != 0) {
    job->error = errno;
    job->syscall = "fstat";
  } else if (S_ISREG(stats.st_mode)) {
    /* The file's size bounds the read too: a file that grew meanwhile is read as it was. */
    size_t wanted = (size_t)stats.st_size < job->length ? (size_t)stats.st_size : job->length;
    read_replica_bytes(job, fd, wanted);
  }
  close(fd);
  if (!job->error) SHA256(job->bytes + job->offset, job->bytes_read, job->digest);
}

static void read_complete(napi_env env, napi_status status, void *data) {
  job_t *job = data;
  if (status == napi_ok && job->missing) {
    resolve_undefined(env, job);
  } else if (status == napi_ok && !job->error) {
    char hex[SHA256_DIGEST_LENGTH * 2];
    hex_digest(job, hex);
    napi_value result, bytes_read, offset, digest;
    napi_create_object(env, &result);
    napi_create_double(env, (double)job->bytes_read, &bytes_read);
    napi_create_double(env, (double)job->offset, &offset);
    napi_create_string_latin1(env, hex, sizeof hex, &digest);
    napi_set_named_property(env, result, "bytesRead", bytes_read);
    napi_set_named_property(env, result, "offset", offset);
    napi_set_named_property(env, result, "sha256Hex", digest);
    napi_resolve_deferred(env, job->deferred, result);
  } else {
    reject_errno(env, status, job, "readReplica");
  }
  free_job(env, job);
}

static napi_value read_replica(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  job_t *job = new_job(env, info, &argc, argv);
  if (!job) return NULL;
  if (argc < 2 || !(job->path = string_arg(env, argv[0])) || !bytes_arg(env, argv[1], job))
    return fail_arguments(env, job, "readReplica(path, into, maxBytes): a path, a Uint8Array and a count");
  job->room = job->length;
  napi_valuetype type = napi_undefined;
  if (argc > 2) napi_typeof(env, argv[2], &type);
  if (type != napi_undefined) {
    int64_t most = -1;
    if (napi_get_value_int64(env, argv[2], &most) != napi_ok || most < 0 || (uint64_t)most > job->room)
      return fail_arguments(env, job,
                            "readReplica(path, into, maxBytes): maxBytes a count no larger than into");
    job->length = (size_t)most;
  }
  return start(env, job, "readReplica", read_execute, read_complete);
}

/* ---- markTopDirectory ---- */

static napi_value mark_top_directory(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  char *path = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      !(path = string_arg(env, argv[0]))) {
    napi_throw_type_error(env, NULL, "markTopDirectory(path): a path");
    return NULL;
  }
  bool marked = false;
#if defined(__linux__) && defined(FS_IOC_GETFLAGS) && defined(FS_TOPDIR_FL)
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    /* The kernel reads and writes an int, whatever the ioctl's declared argument type. */
    int flags = 0;
    if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
      flags |= FS_TOPDIR_FL;
      marked = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
    }
    close(fd);
  }
#endif
  free(path);
  napi_value result;
  napi_get_boolean(env, marked, &result);
  return result;
}

static void export_function(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value function;
  if (napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &function) == napi_ok)
    napi_set_named_property(env, exports, name, function);
}

static napi_value init(napi_env env, napi_value exports) {
  export_function(env, exports, "sha256Hex", sha256_hex);
  export_function(env, exports, "writeReplica", write_replica);
  export_function(env, exports, "readReplica", read_replica);
  export_function(env, exports, "markTopDirectory", mark_top_directory);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
