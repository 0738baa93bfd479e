/* SPDX-License-Identifier: MIT */
/* Small helpers shared by every lib module: string lists and the warning sink. */
#ifndef RD_UTIL_H
#define RD_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define RD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A growable list of owned strings. */
struct rd_strlist {
	char **v;
	size_t n;
	size_t cap;
};

int rd_strlist_add(struct rd_strlist *l, const char *s);
/* Add unless an equal string is already present. */
int rd_strlist_add_unique(struct rd_strlist *l, const char *s);
/*
 * Move every string of from to the end of l, which owns them after (no
 * copy); from is left empty.  -ENOMEM: l is as it was, from's strings freed.
 */
int rd_strlist_move(struct rd_strlist *l, struct rd_strlist *from);
bool rd_strlist_has(const struct rd_strlist *l, const char *s);
void rd_strlist_free(struct rd_strlist *l);
/* Join with sep into a new string (never NULL on success; "" for an empty list). */
char *rd_strlist_join(const struct rd_strlist *l, const char *sep);
/* Sort: all-digit names numerically, before other names in version order. */
void rd_strlist_sort_natural(struct rd_strlist *l);
int rd_natural_cmp(const char *a, const char *b);

/*
 * The library never prints.  Things worth a warning (a malformed sysfs file,
 * a device that would not open) are collected here; the tool reports them.
 */
struct rd_warnings {
	struct rd_strlist msgs;
};

/*
 * A write to the output failed with errno err (0: unknown): remember the
 * first cause for the report at exit (stdio forgets it), return -err.
 */
int rd_write_error(int err);
/* The first recorded cause, 0 if none. */
int rd_first_write_error(void);

void rd_warn(struct rd_warnings *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void rd_warnings_free(struct rd_warnings *w);

/* snprintf into buf; -ENAMETOOLONG when it did not fit. */
int rd_snprintf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int rd_vsnprintf(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Copy with truncation, always NUL-terminated. */
void rd_strlcpy(char *dst, const char *src, size_t len);

/*
 * A name measured once, for loops that print the same names many times
 * (rdma-top's counters, every refresh): its length, and whether it is plain
 * (printable ASCII without '"' or '\\'), which lets a writer copy it as it
 * is.  s is borrowed.  RD_NAME_PLAIN is for string literals that are plain.
 */
struct rd_name {
	const char *s;
	size_t len;
	bool plain;
};
#define RD_NAME_PLAIN(lit) { (lit), sizeof(lit) - 1, true }
void rd_name_set(struct rd_name *n, const char *s);
/*
 * A timestamp as logs print it: "2026-11-25T19:43:13.003" in local time, or
 * with utc "...Z".  buf holds 40 bytes.
 */
struct timespec;
void rd_format_time(const struct timespec *ts, bool utc, char buf[40]);

/*
 * GCC 12's -fanalyzer (make lint) loses track of a heap pointer stored into a
 * heap array element at a variable index (after a realloc, or through a
 * pointer into an array) and reports it leaked at a later statement: GCC PR
 * analyzer/106473 and kin.  These bracket just the statement it names, with a
 * comment at each; other compilers see nothing.  Recheck on a newer GCC.
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10 && __GNUC__ <= 12
#define RD_GCC_LEAK_FP_BEGIN _Pragma("GCC diagnostic push") \
	_Pragma("GCC diagnostic ignored \"-Wanalyzer-malloc-leak\"")
#define RD_GCC_LEAK_FP_END _Pragma("GCC diagnostic pop")
#else
#define RD_GCC_LEAK_FP_BEGIN
#define RD_GCC_LEAK_FP_END
#endif

#endif
