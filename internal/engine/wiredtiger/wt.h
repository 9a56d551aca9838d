// The WiredTiger API is function pointers in structs, which Go cannot call: wt.c wraps the calls
// rumbench makes. A key or value given by Go is used during the call only.
#ifndef RUMBENCH_WT_H
#define RUMBENCH_WT_H
#include <stdint.h>
#include <stddef.h>
#include <wiredtiger.h>

// wt_handler is a connection's event handler: it keeps WiredTiger's error messages, which
// WiredTiger would print on stderr, for the Go side to return with the call that failed.
typedef struct wt_handler wt_handler;

wt_handler *wt_handler_new(void);
void wt_handler_free(wt_handler *h);
// wt_handler_error copies the first error reported with a code other than 0 and WT_PANIC
// (which = 0: the failure a panic follows) or the last one with a code other than 0 (which = 1)
// into msg (n bytes, NUL-terminated) and returns its code, 0 when there is none.
int wt_handler_error(wt_handler *h, int which, char *msg, size_t n);
// wt_handler_panicked says whether WiredTiger reported WT_PANIC (1) or not (0).
int wt_handler_panicked(wt_handler *h);

int wt_open(const char *home, const char *cfg, wt_handler *h, WT_CONNECTION **conn);
int wt_conn_close(WT_CONNECTION *c);
int wt_session_open(WT_CONNECTION *c, WT_SESSION **s);
int wt_session_close(WT_SESSION *s);
int wt_create(WT_SESSION *s, const char *uri, const char *cfg);
int wt_checkpoint(WT_SESSION *s);
int wt_begin(WT_SESSION *s);
int wt_commit(WT_SESSION *s);
int wt_rollback(WT_SESSION *s);
int wt_cursor_open(WT_SESSION *s, const char *uri, WT_CURSOR **c);
int wt_cursor_close(WT_CURSOR *c);
int wt_reset(WT_CURSOR *c);
int wt_put(WT_CURSOR *c, const void *k, size_t kn, const void *v, size_t vn);
int wt_del(WT_CURSOR *c, const void *k, size_t kn);
int wt_search(WT_CURSOR *c, const void *k, size_t kn, const void **v, size_t *vn);
int wt_seek_ge(WT_CURSOR *c, const void *k, size_t kn);
int wt_next(WT_CURSOR *c);
int wt_seek_lt(WT_CURSOR *c, const void *k, size_t kn);
int wt_prev(WT_CURSOR *c);
int wt_current(WT_CURSOR *c, const void **k, size_t *kn, const void **v, size_t *vn);
int wt_stat(WT_CURSOR *c, int key, int64_t *value);
const char *wt_strerror(int r);
const char *wt_version(void);

#endif
