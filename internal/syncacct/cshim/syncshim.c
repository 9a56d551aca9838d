/*
 * syncshim.c: counts sync calls and bytes written per file class, and optionally sleeps a fixed
 * latency in every sync call (emulated slow fsync).
 *
 * The same source is built two ways:
 *   - with -DRUMSYNC_PRELOAD as a shared library (librumsync.so) that rumbench loads with
 *     LD_PRELOAD into the database servers it manages. It configures itself from the environment
 *     on first use (see preload_init) and adds to a counter file that every server process maps
 *     shared, so forked and exec'ed processes aggregate into one set of counters;
 *   - without it, by cgo into the rumbench binary itself (package cshim). The definitions below
 *     then take the place of libc's for the C code linked into rumbench (SQLite), and rumbench
 *     configures them with rumsync_setup.
 *
 * Counters (internal/syncacct/layout.go holds the same layout): 8 header words (magic, version,
 * processes attached), then for each class (log, data, other) RS_NCTR words (see enum ctr).
 * Every update is one relaxed atomic add: no locks on the hot path.
 *
 * A file is classified once per descriptor: readlink(/proc/self/fd/N), the path made relative
 * to the root directory and matched with fnmatch(3) against the log patterns, then the data
 * patterns; a file under the root that matches neither is "other", a file outside the root is
 * not counted. The class is cached per descriptor (one byte, in a per-process table); close,
 * dup2, dup3, close_range and the open calls reset the entry, and every sync call resolves its
 * descriptor afresh (a sync costs far more than a readlink).
 *
 * The real functions are looked up lazily with dlsym(RTLD_NEXT) in each wrapper, because other
 * libraries' constructors may call close() or write() before this library's constructor ran.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define RS_MAGIC 0x314e5953444d5552ULL /* "RUMDSYN1" little-endian */
#define RS_VERSION 1
#define RS_HDR 8     /* header words: magic, version, attached, reserved */
#define RS_NCTR 16   /* counter words per class */
#define RS_NCLASS 3
#define RS_WORDS (RS_HDR + RS_NCLASS * RS_NCTR)

enum hdr { H_MAGIC, H_VERSION, H_ATTACHED };
enum ctr {
	C_FSYNC, C_FDATASYNC, C_SFR, C_MSYNC, C_SYNCFS, C_SYNC, C_DSYNC_WRITES,
	C_WRITES, C_WRITE_BYTES, C_DELAY_NS, C_SYNC_NS
};
enum cls { CL_LOG, CL_DATA, CL_OTHER };

/* Per-descriptor cache: 0 = unknown, CACHE_IGNORE = not counted, else class+1, | CACHE_DSYNC
 * when the descriptor was opened with O_DSYNC or O_SYNC. */
#define FDCACHE 65536
#define CACHE_IGNORE 0x7f
#define CACHE_DSYNC 0x80
static unsigned char fdcache[FDCACHE];

#define MAXPAT 32
static uint64_t *counters;           /* NULL: not configured, every call passes through */
static char root[4096];
static size_t rootlen;
static char patbuf[2][4096];
static const char *pats[2][MAXPAT]; /* [0] log, [1] data; NULL-terminated */
static long delay_ns;

/* ---- configuration ---- */

/* splitpats copies a colon-separated pattern list into buf and points out[] at its items. */
static void splitpats(const char *s, char *buf, const char **out) {
	int n = 0;
	if (s == NULL) s = "";
	strncpy(buf, s, 4095);
	buf[4095] = 0;
	for (char *p = buf; *p && n < MAXPAT - 1;) {
		out[n++] = p;
		char *c = strchr(p, ':');
		if (!c) break;
		*c = 0;
		p = c + 1;
	}
	out[n] = NULL;
}

/* rumsync_setup points the wrappers at a counter block of RS_WORDS words and sets the root
 * directory, the log and data patterns (colon-separated fnmatch patterns relative to root) and
 * the latency added to every sync call. ctrs == NULL turns counting off. Not safe against
 * concurrent wrapper calls that classify files: call it before the files are in use. */
void rumsync_setup(uint64_t *ctrs, const char *rootdir, const char *logpat, const char *datapat, long delay) {
	__atomic_store_n(&counters, (uint64_t *)0, __ATOMIC_RELEASE);
	if (ctrs == NULL) return;
	strncpy(root, rootdir ? rootdir : "/", sizeof root - 1);
	rootlen = strlen(root);
	while (rootlen > 1 && root[rootlen - 1] == '/') root[--rootlen] = 0;
	splitpats(logpat, patbuf[0], pats[0]);
	splitpats(datapat, patbuf[1], pats[1]);
	delay_ns = delay > 0 ? delay : 0;
	memset(fdcache, 0, sizeof fdcache);
	ctrs[H_MAGIC] = RS_MAGIC;
	ctrs[H_VERSION] = RS_VERSION;
	__atomic_add_fetch(&ctrs[H_ATTACHED], 1, __ATOMIC_RELAXED);
	__atomic_store_n(&counters, ctrs, __ATOMIC_RELEASE);
}

#ifdef RUMSYNC_PRELOAD
/* preload_init maps the counter file named by RUMSYNC_FILE (created by rumbench with the right
 * size) and reads RUMSYNC_ROOT, RUMSYNC_LOG, RUMSYNC_DATA and RUMSYNC_DELAY_NS. Without
 * RUMSYNC_FILE, or when the file cannot be mapped, nothing is counted. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static void preload_init(void) {
	const char *path = getenv("RUMSYNC_FILE");
	if (path == NULL || *path == 0) return;
	int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDWR | O_CLOEXEC, 0);
	if (fd < 0) return;
	void *m = mmap(NULL, RS_WORDS * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	syscall(SYS_close, fd); /* not close(): that is the wrapper below */
	if (m == MAP_FAILED) return;
	const char *d = getenv("RUMSYNC_DELAY_NS");
	rumsync_setup((uint64_t *)m, getenv("RUMSYNC_ROOT"), getenv("RUMSYNC_LOG"), getenv("RUMSYNC_DATA"),
		d ? atol(d) : 0);
}
__attribute__((constructor)) static void ctor(void) { pthread_once(&once, preload_init); }
static inline uint64_t *active(void) {
	uint64_t *c = __atomic_load_n(&counters, __ATOMIC_ACQUIRE);
	if (c == NULL) {
		pthread_once(&once, preload_init);
		c = __atomic_load_n(&counters, __ATOMIC_ACQUIRE);
	}
	return c;
}
#else
static inline uint64_t *active(void) { return __atomic_load_n(&counters, __ATOMIC_ACQUIRE); }
#endif

/* REAL(name) is the next definition of name (libc's), resolved on first use. Two threads may
 * both resolve it: they store the same pointer. */
#define REAL(ret, name, args)                                                    \
	static ret(*real_##name) args;                                               \
	if (real_##name == NULL) {                                                   \
		void *p = dlsym(RTLD_NEXT, #name);                                       \
		if (p == NULL) { errno = ENOSYS; return -1; }                            \
		__atomic_store_n((void **)&real_##name, p, __ATOMIC_RELAXED);           \
	}

/* ---- classification ---- */

static int matches(const char *rel, const char **p) {
	for (; *p; p++)
		if (**p && fnmatch(*p, rel, 0) == 0) return 1;
	return 0;
}

/* resolve classifies fd now and caches the result. */
static unsigned char resolve(int fd) {
	char link[32], path[4096];
	memcpy(link, "/proc/self/fd/", 14);
	char digits[12];
	int n = 0;
	unsigned v = (unsigned)fd;
	do { digits[n++] = (char)('0' + v % 10); v /= 10; } while (v);
	for (int i = 0; i < n; i++) link[14 + i] = digits[n - 1 - i];
	link[14 + n] = 0;
	ssize_t len = readlink(link, path, sizeof path - 1);
	unsigned char c = CACHE_IGNORE;
	if (len > 0) {
		path[len] = 0;
		if (len > 10 && strcmp(path + len - 10, " (deleted)") == 0) path[len -= 10] = 0;
		if (strncmp(path, root, rootlen) == 0 && (path[rootlen] == 0 || path[rootlen] == '/' || rootlen == 1)) {
			const char *rel = path[rootlen] ? path + rootlen + (rootlen > 1) : "";
			int k = CL_OTHER;
			if (matches(rel, pats[0])) k = CL_LOG;
			else if (matches(rel, pats[1])) k = CL_DATA;
			c = (unsigned char)(k + 1);
			int fl = fcntl(fd, F_GETFL);
			if (fl >= 0 && (fl & O_DSYNC)) c |= CACHE_DSYNC;
		}
	}
	if (fd >= 0 && fd < FDCACHE) __atomic_store_n(&fdcache[fd], c, __ATOMIC_RELAXED);
	return c;
}

static inline unsigned char fdclass(int fd) {
	unsigned char c = (fd >= 0 && fd < FDCACHE) ? __atomic_load_n(&fdcache[fd], __ATOMIC_RELAXED) : 0;
	return c ? c : resolve(fd);
}

static inline void forget(int fd) {
	if (fd >= 0 && fd < FDCACHE) __atomic_store_n(&fdcache[fd], 0, __ATOMIC_RELAXED);
}

static inline void add(uint64_t *ctrs, int k, int ctr, uint64_t n) {
	__atomic_add_fetch(&ctrs[RS_HDR + k * RS_NCTR + ctr], n, __ATOMIC_RELAXED);
}

static inline int64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* delay sleeps the configured latency and charges the time slept to class k. */
static void delay(uint64_t *ctrs, int k) {
	if (delay_ns <= 0) return;
	int64_t t0 = now_ns();
	struct timespec ts = {delay_ns / 1000000000, delay_ns % 1000000000};
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {}
	add(ctrs, k, C_DELAY_NS, (uint64_t)(now_ns() - t0));
}

/* synced records a sync call of kind ctr on fd (fd < 0: not tied to a file, class other) that
 * started at t0, then sleeps the injected latency when slow is set. */
static void synced(uint64_t *ctrs, int fd, int ctr, int64_t t0, int slow) {
	int64_t t1 = now_ns();
	int k = CL_OTHER;
	if (fd >= 0) {
		unsigned char c = resolve(fd);
		if (c == CACHE_IGNORE) return;
		k = (c & 0x7f) - 1;
	}
	add(ctrs, k, ctr, 1);
	add(ctrs, k, C_SYNC_NS, (uint64_t)(t1 - t0));
	if (slow) delay(ctrs, k);
}

/* wrote records n bytes written to fd; a write to an O_DSYNC/O_SYNC descriptor is a sync too. */
static inline void wrote(uint64_t *ctrs, int fd, ssize_t n, int64_t t0) {
	if (n < 0) return;
	unsigned char c = fdclass(fd);
	if (c == CACHE_IGNORE) return;
	int k = (c & 0x7f) - 1;
	add(ctrs, k, C_WRITES, 1);
	add(ctrs, k, C_WRITE_BYTES, (uint64_t)n);
	if (c & CACHE_DSYNC) {
		add(ctrs, k, C_DSYNC_WRITES, 1);
		if (t0) add(ctrs, k, C_SYNC_NS, (uint64_t)(now_ns() - t0));
		delay(ctrs, k);
	}
}

/* t0 of a write: the clock is read only for O_DSYNC descriptors (their time is sync time). */
static inline int64_t wstart(int fd) {
	unsigned char c = (fd >= 0 && fd < FDCACHE) ? __atomic_load_n(&fdcache[fd], __ATOMIC_RELAXED) : 0;
	return (c & CACHE_DSYNC) ? now_ns() : 0;
}

/* ---- sync calls ---- */

int fsync(int fd) {
	REAL(int, fsync, (int));
	uint64_t *c = active();
	if (!c) return real_fsync(fd);
	int64_t t0 = now_ns();
	int r = real_fsync(fd);
	synced(c, fd, C_FSYNC, t0, 1);
	return r;
}

int fdatasync(int fd) {
	REAL(int, fdatasync, (int));
	uint64_t *c = active();
	if (!c) return real_fdatasync(fd);
	int64_t t0 = now_ns();
	int r = real_fdatasync(fd);
	synced(c, fd, C_FDATASYNC, t0, 1);
	return r;
}

/* sync_file_range waits for the device only with SYNC_FILE_RANGE_WAIT_AFTER: only then is the
 * latency injected. */
int sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags) {
	REAL(int, sync_file_range, (int, off64_t, off64_t, unsigned int));
	uint64_t *c = active();
	if (!c) return real_sync_file_range(fd, off, n, flags);
	int64_t t0 = now_ns();
	int r = real_sync_file_range(fd, off, n, flags);
	synced(c, fd, C_SFR, t0, (flags & SYNC_FILE_RANGE_WAIT_AFTER) != 0);
	return r;
}

/* msync cannot name its file cheaply: it is counted as class other, slowed with MS_SYNC. */
int msync(void *addr, size_t len, int flags) {
	REAL(int, msync, (void *, size_t, int));
	uint64_t *c = active();
	if (!c) return real_msync(addr, len, flags);
	int64_t t0 = now_ns();
	int r = real_msync(addr, len, flags);
	synced(c, -1, C_MSYNC, t0, (flags & MS_SYNC) != 0);
	return r;
}

int syncfs(int fd) {
	REAL(int, syncfs, (int));
	uint64_t *c = active();
	if (!c) return real_syncfs(fd);
	int64_t t0 = now_ns();
	int r = real_syncfs(fd);
	synced(c, fd, C_SYNCFS, t0, 1);
	return r;
}

void sync(void) {
	static void (*real_sync)(void);
	if (real_sync == NULL) {
		void *p = dlsym(RTLD_NEXT, "sync");
		if (p == NULL) return;
		__atomic_store_n((void **)&real_sync, p, __ATOMIC_RELAXED);
	}
	uint64_t *c = active();
	if (!c) { real_sync(); return; }
	int64_t t0 = now_ns();
	real_sync();
	synced(c, -1, C_SYNC, t0, 1);
}

/* ---- writes ---- */

#define WRAP_WRITE(name, params, args, fdarg)           \
	ssize_t name params {                               \
		REAL(ssize_t, name, params);                    \
		uint64_t *c = active();                         \
		if (!c) return real_##name args;                \
		int64_t t0 = wstart(fdarg);                     \
		ssize_t r = real_##name args;                   \
		wrote(c, fdarg, r, t0);                         \
		return r;                                       \
	}

WRAP_WRITE(write, (int fd, const void *buf, size_t n), (fd, buf, n), fd)
WRAP_WRITE(pwrite, (int fd, const void *buf, size_t n, off_t off), (fd, buf, n, off), fd)
WRAP_WRITE(pwrite64, (int fd, const void *buf, size_t n, off64_t off), (fd, buf, n, off), fd)
WRAP_WRITE(writev, (int fd, const struct iovec *iov, int cnt), (fd, iov, cnt), fd)
WRAP_WRITE(pwritev, (int fd, const struct iovec *iov, int cnt, off_t off), (fd, iov, cnt, off), fd)
WRAP_WRITE(pwritev64, (int fd, const struct iovec *iov, int cnt, off64_t off), (fd, iov, cnt, off), fd)
WRAP_WRITE(pwritev2, (int fd, const struct iovec *iov, int cnt, off_t off, int fl), (fd, iov, cnt, off, fl), fd)

/* ---- descriptor lifetime: keep the class cache in step ---- */

int close(int fd) {
	REAL(int, close, (int));
	forget(fd);
	return real_close(fd);
}

int dup2(int from, int to) {
	REAL(int, dup2, (int, int));
	int r = real_dup2(from, to);
	if (r >= 0) forget(r);
	return r;
}

int dup3(int from, int to, int flags) {
	REAL(int, dup3, (int, int, int));
	int r = real_dup3(from, to, flags);
	if (r >= 0) forget(r);
	return r;
}

int close_range(unsigned int first, unsigned int last, int flags) {
	REAL(int, close_range, (unsigned int, unsigned int, int));
	for (unsigned int fd = first; fd <= last && fd < FDCACHE; fd++) forget((int)fd);
	return real_close_range(first, last, flags);
}

/* The open calls reset the entry of the descriptor they return, in case it was closed by a path
 * this library does not see (fclose, a raw syscall). */
static inline mode_t open_mode(int flags, va_list ap) {
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

#define WRAP_OPEN(name, params, args, before)            \
	int name params {                                    \
		REAL(int, name, (before, int, ...));             \
		va_list ap;                                      \
		va_start(ap, flags);                             \
		mode_t mode = open_mode(flags, ap);              \
		va_end(ap);                                      \
		int r = real_##name args;                        \
		forget(r);                                       \
		return r;                                        \
	}

WRAP_OPEN(open, (const char *path, int flags, ...), (path, flags, mode), const char *)
WRAP_OPEN(open64, (const char *path, int flags, ...), (path, flags, mode), const char *)

int openat(int dir, const char *path, int flags, ...) {
	REAL(int, openat, (int, const char *, int, ...));
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	int r = real_openat(dir, path, flags, mode);
	forget(r);
	return r;
}

int openat64(int dir, const char *path, int flags, ...) {
	REAL(int, openat64, (int, const char *, int, ...));
	va_list ap;
	va_start(ap, flags);
	mode_t mode = open_mode(flags, ap);
	va_end(ap);
	int r = real_openat64(dir, path, flags, mode);
	forget(r);
	return r;
}
