//go:build wiredtiger

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wt.h"

// The WiredTiger API is function pointers in structs, which Go cannot call: these wrappers do.
// A key or value given by Go is used during the call only: a cursor is reset before a wrapper
// returns unless it is left positioned on a record of WiredTiger's (then its key and value point
// into WiredTiger's memory, valid until the next call on the cursor).

struct wt_handler {
	WT_EVENT_HANDLER h; // first: WiredTiger is given its address
	pthread_mutex_t mu;
	int first, last;    // the codes of the kept errors, 0: none
	int panicked;       // WiredTiger reported WT_PANIC
	char first_msg[1024], last_msg[1024];
};

// wt_handle_error keeps an error message instead of printing it; WiredTiger calls it from any
// of its threads.
static int wt_handle_error(WT_EVENT_HANDLER *eh, WT_SESSION *s, int error, const char *message) {
	(void)s;
	wt_handler *h = (wt_handler *)eh;
	if (error == 0) return 0; // a report without an error code (what a failed close leaves)
	pthread_mutex_lock(&h->mu);
	if (h->first == 0 && error != WT_PANIC) {
		h->first = error;
		snprintf(h->first_msg, sizeof h->first_msg, "%s", message);
	}
	if (error == WT_PANIC) h->panicked = 1;
	h->last = error;
	snprintf(h->last_msg, sizeof h->last_msg, "%s", message);
	pthread_mutex_unlock(&h->mu);
	return 0;
}

wt_handler *wt_handler_new(void) {
	wt_handler *h = calloc(1, sizeof *h);
	if (h == NULL) return NULL;
	pthread_mutex_init(&h->mu, NULL);
	h->h.handle_error = wt_handle_error;
	return h;
}

void wt_handler_free(wt_handler *h) {
	if (h == NULL) return;
	pthread_mutex_destroy(&h->mu);
	free(h);
}

int wt_handler_error(wt_handler *h, int which, char *msg, size_t n) {
	pthread_mutex_lock(&h->mu);
	int code = which == 0 ? h->first : h->last;
	snprintf(msg, n, "%s", which == 0 ? h->first_msg : h->last_msg);
	pthread_mutex_unlock(&h->mu);
	return code;
}

int wt_handler_panicked(wt_handler *h) {
	pthread_mutex_lock(&h->mu);
	int p = h->panicked;
	pthread_mutex_unlock(&h->mu);
	return p;
}

int wt_open(const char *home, const char *cfg, wt_handler *h, WT_CONNECTION **conn) {
	return wiredtiger_open(home, h == NULL ? NULL : &h->h, cfg, conn);
}
int wt_conn_close(WT_CONNECTION *c) { return c->close(c, NULL); }
int wt_session_open(WT_CONNECTION *c, WT_SESSION **s) { return c->open_session(c, NULL, NULL, s); }
int wt_session_close(WT_SESSION *s) { return s->close(s, NULL); }
int wt_create(WT_SESSION *s, const char *uri, const char *cfg) { return s->create(s, uri, cfg); }
int wt_checkpoint(WT_SESSION *s) { return s->checkpoint(s, NULL); }
int wt_begin(WT_SESSION *s) { return s->begin_transaction(s, NULL); }
int wt_commit(WT_SESSION *s) { return s->commit_transaction(s, NULL); }
int wt_rollback(WT_SESSION *s) { return s->rollback_transaction(s, NULL); }
int wt_cursor_open(WT_SESSION *s, const char *uri, WT_CURSOR **c) { return s->open_cursor(s, uri, NULL, NULL, c); }
int wt_cursor_close(WT_CURSOR *c) { return c->close(c); }
int wt_reset(WT_CURSOR *c) { return c->reset(c); }

int wt_put(WT_CURSOR *c, const void *k, size_t kn, const void *v, size_t vn) {
	WT_ITEM ki, vi;
	memset(&ki, 0, sizeof ki); memset(&vi, 0, sizeof vi);
	ki.data = k; ki.size = kn; vi.data = v; vi.size = vn;
	c->set_key(c, &ki);
	c->set_value(c, &vi);
	int r = c->insert(c);
	c->reset(c);
	return r;
}

int wt_del(WT_CURSOR *c, const void *k, size_t kn) {
	WT_ITEM ki;
	memset(&ki, 0, sizeof ki);
	ki.data = k; ki.size = kn;
	c->set_key(c, &ki);
	int r = c->remove(c);
	c->reset(c);
	return r == WT_NOTFOUND ? 0 : r;
}

// wt_search positions c on key k and returns its value, or WT_NOTFOUND (the cursor reset).
int wt_search(WT_CURSOR *c, const void *k, size_t kn, const void **v, size_t *vn) {
	WT_ITEM ki, vi;
	memset(&ki, 0, sizeof ki); memset(&vi, 0, sizeof vi);
	ki.data = k; ki.size = kn;
	c->set_key(c, &ki);
	int r = c->search(c);
	if (r == 0) r = c->get_value(c, &vi);
	if (r != 0) { c->reset(c); return r; }
	*v = vi.data; *vn = vi.size;
	return 0;
}

// wt_seek_ge positions c on the first key >= k, or returns WT_NOTFOUND (the cursor reset).
int wt_seek_ge(WT_CURSOR *c, const void *k, size_t kn) {
	WT_ITEM ki;
	memset(&ki, 0, sizeof ki);
	ki.data = k; ki.size = kn;
	c->set_key(c, &ki);
	int exact = 0;
	int r = c->search_near(c, &exact);
	if (r == 0 && exact < 0) r = c->next(c);
	if (r != 0) c->reset(c);
	return r;
}

int wt_next(WT_CURSOR *c) { int r = c->next(c); if (r != 0) c->reset(c); return r; }

// wt_seek_lt positions c on the last key < k, or returns WT_NOTFOUND (the cursor reset).
int wt_seek_lt(WT_CURSOR *c, const void *k, size_t kn) {
	WT_ITEM ki;
	memset(&ki, 0, sizeof ki);
	ki.data = k; ki.size = kn;
	c->set_key(c, &ki);
	int exact = 0;
	int r = c->search_near(c, &exact);
	if (r == 0 && exact >= 0) r = c->prev(c);
	if (r != 0) c->reset(c);
	return r;
}

int wt_prev(WT_CURSOR *c) { int r = c->prev(c); if (r != 0) c->reset(c); return r; }

int wt_current(WT_CURSOR *c, const void **k, size_t *kn, const void **v, size_t *vn) {
	WT_ITEM ki, vi;
	memset(&ki, 0, sizeof ki); memset(&vi, 0, sizeof vi);
	int r = c->get_key(c, &ki);
	if (r == 0) r = c->get_value(c, &vi);
	*k = ki.data; *kn = ki.size; *v = vi.data; *vn = vi.size;
	return r;
}

// wt_stat reads one statistic of a statistics cursor.
int wt_stat(WT_CURSOR *c, int key, int64_t *value) {
	c->set_key(c, key);
	int r = c->search(c);
	if (r != 0) return r;
	const char *desc, *pvalue;
	r = c->get_value(c, &desc, &pvalue, value);
	c->reset(c);
	return r;
}

const char *wt_strerror(int r) { return wiredtiger_strerror(r); }
const char *wt_version(void) { return wiredtiger_version(NULL, NULL, NULL); }
