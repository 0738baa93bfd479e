/* SPDX-License-Identifier: MIT */
/*
 * A hash map from byte strings to numbers: the lookup under every "have we
 * seen this host / stream / fact / value" question of the fleet tools, where
 * a linear scan made 10,000 hosts take minutes (issue #33).
 *
 * Keys are copied (any bytes, so a composite key may hold NULs: build it with
 * rd_strmap_key*); the value is the caller's, usually an index into its own
 * array, which keeps first-seen order for output.  Open addressing with
 * linear probing, at most 1/2 full; the hash is seeded per map from
 * getrandom(), so a crafted set of names cannot make every lookup collide.
 * Memory: the keys (kept together in a string pool, below) plus 20 bytes a
 * slot.
 *
 * The string pool: copies of strings that live as long as their owner, in
 * blocks of 64 KiB, freed at once.  A million host names are a few blocks,
 * not a million allocations (and a million frees at the end).
 */
#ifndef RD_STRMAP_H
#define RD_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rd_strpool_block;

struct rd_strpool {
	struct rd_strpool_block *blocks;	/* newest first */
	char *at;	/* free room in the newest block */
	size_t left;
	size_t grow;	/* the next block's size (0: the first, small one) */
};

/* Room for len bytes and a NUL after them (zero the pool to start); NULL out of memory. */
char *rd_strpool_alloc(struct rd_strpool *p, size_t len);
/* A copy of len bytes and a NUL after them. */
char *rd_strpool_dup(struct rd_strpool *p, const void *s, size_t len);
char *rd_strpool_sdup(struct rd_strpool *p, const char *s);
void rd_strpool_free(struct rd_strpool *p);

struct rd_strmap_slot {
	char *key;	/* NULL: empty */
	size_t val;
};

struct rd_strmap {
	struct rd_strmap_slot *slots;
	uint32_t *hashes;	/* beside the slots: a probe compares these first */
	size_t cap;		/* a power of two, or 0 */
	size_t n;
	uint64_t seed;
	struct rd_strpool keys;
};

/*
 * Look key up; when it is absent, add it with *val.  Returns 1 when it was
 * there (*val is set to its value), 0 when added, -ENOMEM.
 */
int rd_strmap_get_or_add(struct rd_strmap *m, const void *key, size_t len, size_t *val);
/* true and *val when key is there. */
bool rd_strmap_get(const struct rd_strmap *m, const void *key, size_t len, size_t *val);
/* Set key's value (adding it when absent).  0 or -ENOMEM. */
int rd_strmap_set(struct rd_strmap *m, const void *key, size_t len, size_t val);
void rd_strmap_free(struct rd_strmap *m);
/* Room for n more keys without growing on the way (0 or -ENOMEM). */
int rd_strmap_reserve(struct rd_strmap *m, size_t n);

/* The same for NUL-terminated keys. */
int rd_strmap_sget_or_add(struct rd_strmap *m, const char *key, size_t *val);
bool rd_strmap_sget(const struct rd_strmap *m, const char *key, size_t *val);

/* Room for composite keys, grown as needed (zero it to start; free ->s). */
struct rd_strmap_keybuf {
	char *s;
	size_t cap;
};

/*
 * A composite key: the parts, each followed by a NUL (a missing part, NULL,
 * is a single 0x01 byte and its NUL, so it differs from ""), into b->s.
 * Returns the key's length, or 0 out of memory.
 */
size_t rd_strmap_key(struct rd_strmap_keybuf *b, const char *const *parts, size_t nparts);

#endif
