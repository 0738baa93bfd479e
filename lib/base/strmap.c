// SPDX-License-Identifier: MIT
/* A seeded open-addressing hash map from byte strings to numbers (strmap.h). */
#define _GNU_SOURCE
#include "strmap.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define POOL_BLOCK ((size_t)64 * 1024)
/*
 * The first block fits a page with malloc's header and the block's; each
 * next one is twice the last, up to POOL_BLOCK.  A table of a few rows (a
 * map of eight GPUs) then touches one page, not a 64 KiB block's first
 * and last: a fresh page is a page fault, dearer than the few extra blocks
 * a big table (33,000 GIDs) allocates on its way to POOL_BLOCK.
 */
#define POOL_FIRST ((size_t)4096 - 64)

struct rd_strpool_block {
	struct rd_strpool_block *next;
	char data[];
};

char *rd_strpool_alloc(struct rd_strpool *p, size_t len)
{
	char *d;

	if (len >= SIZE_MAX - sizeof(struct rd_strpool_block) - POOL_BLOCK)
		return NULL;
	if (len + 1 > p->left) {
		/* a long string gets a block of its own, behind the current one */
		size_t size = p->grow ? p->grow : POOL_FIRST;
		size_t room = len + 1 > POOL_BLOCK / 4 ? len + 1 : size;
		struct rd_strpool_block *b;

		while (room < len + 1)
			room *= 2;	/* len + 1 <= POOL_BLOCK / 4: at most POOL_BLOCK */
		b = malloc(sizeof(*b) + room);
		if (!b)
			return NULL;
		if (len + 1 <= POOL_BLOCK / 4 || !p->blocks) {
			b->next = p->blocks;
			p->blocks = b;
			p->at = b->data;
			p->left = room;
			p->grow = room * 2 < POOL_BLOCK ? room * 2 : POOL_BLOCK;
		} else {
			b->next = p->blocks->next;
			p->blocks->next = b;
			b->data[len] = '\0';
			return b->data;
		}
	}
	d = p->at;
	d[len] = '\0';
	p->at += len + 1;
	p->left -= len + 1;
	return d;
}

char *rd_strpool_dup(struct rd_strpool *p, const void *s, size_t len)
{
	char *d = rd_strpool_alloc(p, len);

	if (d)
		memcpy(d, s, len);
	return d;
}

char *rd_strpool_sdup(struct rd_strpool *p, const char *s)
{
	return rd_strpool_dup(p, s, strlen(s));
}

void rd_strpool_free(struct rd_strpool *p)
{
	while (p->blocks) {
		struct rd_strpool_block *b = p->blocks;

		p->blocks = b->next;
		free(b);
	}
	memset(p, 0, sizeof(*p));
}

/* 64-bit multiply-fold mixing, 8 bytes at a time, seeded. */
static inline uint64_t mix(uint64_t a, uint64_t b)
{
	__uint128_t r = (__uint128_t)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static uint64_t hash(const void *key, size_t len, uint64_t seed)
{
	const unsigned char *p = key;
	uint64_t h = seed ^ mix(len + 0x9e3779b97f4a7c15ull, 0xa0761d6478bd642full);

	while (len >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		h = mix(h ^ w, 0xe7037ed1a0b428dbull);
		p += 8;
		len -= 8;
	}
	if (len) {
		uint64_t w = 0;

		memcpy(&w, p, len);
		h = mix(h ^ w ^ ((uint64_t)len << 56), 0x8ebc6af09c88c6e3ull);
	}
	return mix(h, 0x589965cc75374cc3ull);
}

static uint64_t new_seed(void)
{
	uint64_t s;
	struct timespec ts;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) == (ssize_t)sizeof(s))
		return s;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ull ^ (uint64_t)ts.tv_sec;
}

/* The slot of key, or the empty slot where it would go. */
static size_t find(const struct rd_strmap *m, const void *key, size_t len, uint64_t h)
{
	size_t mask = m->cap - 1, i = (size_t)h & mask;
	uint32_t h32 = (uint32_t)(h >> 32);

	for (;;) {
		const struct rd_strmap_slot *s = &m->slots[i];

		if (!s->key)
			return i;
		/* The key is stored with its length in front (see store()). */
		if (m->hashes[i] == h32) {
			size_t klen;

			memcpy(&klen, s->key, sizeof(klen));
			if (klen == len && memcmp(s->key + sizeof(klen), key, len) == 0)
				return i;
		}
		i = (i + 1) & mask;
	}
}

/* Move to cap slots (a power of two above twice the keys). */
static int rehash(struct rd_strmap *m, size_t cap)
{
	struct rd_strmap old = *m;

	if (!m->cap)
		m->seed = new_seed();
	m->slots = calloc(cap, sizeof(*m->slots));
	m->hashes = calloc(cap, sizeof(*m->hashes));
	if (!m->slots || !m->hashes) {
		free(m->slots);
		free(m->hashes);
		m->slots = old.slots;
		m->hashes = old.hashes;
		return -ENOMEM;
	}
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++) {
		size_t klen, j;
		uint64_t h;

		if (!old.slots[i].key)
			continue;
		memcpy(&klen, old.slots[i].key, sizeof(klen));
		h = hash(old.slots[i].key + sizeof(klen), klen, m->seed);
		j = find(m, old.slots[i].key + sizeof(klen), klen, h);
		m->slots[j] = old.slots[i];
		m->hashes[j] = (uint32_t)(h >> 32);
	}
	free(old.slots);
	free(old.hashes);
	return 0;
}

static int grow(struct rd_strmap *m)
{
	return rehash(m, m->cap ? m->cap * 2 : 64);
}

int rd_strmap_reserve(struct rd_strmap *m, size_t n)
{
	size_t cap = m->cap ? m->cap : 64;

	if (n > SIZE_MAX / 4)
		return -ENOMEM;
	while (cap < (m->n + n) * 2)
		cap *= 2;
	return cap == m->cap ? 0 : rehash(m, cap);
}

RD_GCC_LEAK_FP_BEGIN	/* a key is stored in its slot, freed by rd_strmap_free */
int rd_strmap_get_or_add(struct rd_strmap *m, const void *key, size_t len, size_t *val)
{
	uint64_t h;
	size_t i;
	char *k;

	if ((m->n + 1) * 2 > m->cap && grow(m))
		return -ENOMEM;
	h = hash(key, len, m->seed);
	i = find(m, key, len, h);
	if (m->slots[i].key) {
		*val = m->slots[i].val;
		return 1;
	}
	/* the length in front (unaligned: read with memcpy), then the bytes */
	k = rd_strpool_alloc(&m->keys, sizeof(len) + len);
	if (!k)
		return -ENOMEM;
	memcpy(k, &len, sizeof(len));
	memcpy(k + sizeof(len), key, len);
	m->slots[i].key = k;
	m->slots[i].val = *val;
	m->hashes[i] = (uint32_t)(h >> 32);
	m->n++;
	return 0;
}

bool rd_strmap_get(const struct rd_strmap *m, const void *key, size_t len, size_t *val)
{
	size_t i;

	if (!m->n)
		return false;
	i = find(m, key, len, hash(key, len, m->seed));
	if (!m->slots[i].key)
		return false;
	if (val)
		*val = m->slots[i].val;
	return true;
}

int rd_strmap_set(struct rd_strmap *m, const void *key, size_t len, size_t val)
{
	size_t v = val;
	int rc = rd_strmap_get_or_add(m, key, len, &v);

	if (rc == 1) {
		uint64_t h = hash(key, len, m->seed);

		m->slots[find(m, key, len, h)].val = val;
		rc = 0;
	}
	return rc;
}

int rd_strmap_sget_or_add(struct rd_strmap *m, const char *key, size_t *val)
{
	return rd_strmap_get_or_add(m, key, strlen(key), val);
}
RD_GCC_LEAK_FP_END

bool rd_strmap_sget(const struct rd_strmap *m, const char *key, size_t *val)
{
	return rd_strmap_get(m, key, strlen(key), val);
}

void rd_strmap_free(struct rd_strmap *m)
{
	rd_strpool_free(&m->keys);
	free(m->slots);
	free(m->hashes);
	memset(m, 0, sizeof(*m));
}

size_t rd_strmap_key(struct rd_strmap_keybuf *b, const char *const *parts, size_t nparts)
{
	size_t need = 1, o = 0;

	for (size_t i = 0; i < nparts; i++)
		need += (parts[i] ? strlen(parts[i]) : 1) + 1;
	if (need > b->cap) {
		char *s = realloc(b->s, need);

		if (!s)
			return 0;
		b->s = s;
		b->cap = need;
	}
	for (size_t i = 0; i < nparts; i++) {
		const char *p = parts[i] ? parts[i] : "\x01";
		size_t l = strlen(p);

		memcpy(b->s + o, p, l + 1);
		o += l + 1;
	}
	return o;
}
