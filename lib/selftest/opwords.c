// SPDX-License-Identifier: MIT
/* The transfer types' words (--op, --deny), their memory access, and the server's target area (stages.h). */
#define _GNU_SOURCE
#include "stages.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const op_names[RD_ST_NOPS] = { "send", "write", "write-imm", "read", "fetch-add",
						   "cmp-swap" };

const char *rd_st_op_name(unsigned int op)
{
	return op < RD_ST_NOPS ? op_names[op] : "?";
}

static int words_parse(const char *s, bool deny, unsigned int *mask, char *why, size_t why_len)
{
	static const struct {
		const char *word;
		unsigned int mask;
		bool deny;	/* also a --deny word */
	} w[] = {
		{ "send", 1u << RD_ST_OP_SEND, false },
		{ "write", (1u << RD_ST_OP_WRITE) | (1u << RD_ST_OP_WRITE_IMM), true },
		{ "read", 1u << RD_ST_OP_READ, true },
		{ "atomic", (1u << RD_ST_OP_FADD) | (1u << RD_ST_OP_CSWAP), true },
		{ "all", RD_ST_OPS_ALL, false },
	};
	const char *p = s;

	*mask = 0;
	for (;;) {
		size_t n = strcspn(p, ",");
		bool found = false;

		for (unsigned int i = 0; i < sizeof(w) / sizeof(w[0]) && n; i++) {
			if ((!deny || w[i].deny) && strlen(w[i].word) == n &&
			    strncasecmp(p, w[i].word, n) == 0) {
				*mask |= w[i].mask;
				found = true;
			}
		}
		if (!n) {
			snprintf(why, why_len, "an empty word (a comma list, like %s)",
				 deny ? "read,atomic" : "write,read");
			return -EINVAL;
		}
		if (!found) {
			snprintf(why, why_len, "'%.*s' is not one of %s", (int)(n > 32 ? 32 : n), p,
				 deny ? "write, read, atomic" : "send, write, read, atomic, all");
			return -EINVAL;
		}
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

int rd_st_ops_parse(const char *s, unsigned int *mask, char *why, size_t why_len)
{
	return words_parse(s, false, mask, why, why_len);
}

int rd_st_deny_parse(const char *s, unsigned int *mask, char *why, size_t why_len)
{
	return words_parse(s, true, mask, why, why_len);
}

int rd_st_target_access(unsigned int deny)
{
	int a = RD_RC_REMOTE_ACCESS;

	if (deny & ((1u << RD_ST_OP_WRITE) | (1u << RD_ST_OP_WRITE_IMM)))
		a &= ~IBV_ACCESS_REMOTE_WRITE;
	if (deny & (1u << RD_ST_OP_READ))
		a &= ~IBV_ACCESS_REMOTE_READ;
	if (deny & ((1u << RD_ST_OP_FADD) | (1u << RD_ST_OP_CSWAP)))
		a &= ~IBV_ACCESS_REMOTE_ATOMIC;
	return a;
}

void rd_st_target_init(struct rd_rc *rc, struct rd_st_target *t)
{
	memset(t, 0, sizeof(*t));
	if (!rc->extra || rc->extra_len < rd_st_target_len(rc->slot_size))
		return;
	memset(rc->extra, 0, rc->extra_len);
	rd_st_fill(rc->extra + rc->slot_size, (uint32_t)rc->slot_size, RD_ST_READ_SEQ);
	t->addr = (uint64_t)(uintptr_t)rc->extra;
	t->rkey = rc->mr->rkey;
	t->len = (uint32_t)rc->slot_size;
}
