// SPDX-License-Identifier: MIT
/*
 * rdma-fleet's input side: host lists and the line streams of many hosts.
 * Byte 0 picks the mode; the rest is text.
 *   even: a host list expression; what expands must compress to a list that
 *         expands to the same set of names (checked).
 *   odd:  lines (split at '\n') fed to rd_fleet as if from two sources, then
 *         the analysis: malformed or hostile input must only ever become
 *         problems, never a crash or a leak.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdma-fleet/fleet.h"
#include "base/hostlist.h"

static void hostlist_case(const char *s)
{
	struct rd_strlist a = { 0 }, b = { 0 }, ua = { 0 };

	if (rd_hostlist_expand(s, &a, NULL) == 0 && a.n <= 10000) {
		char *c = rd_hostlist_compress(&a), *ja, *jb;

		if (!c)
			__builtin_trap();
		if (rd_hostlist_expand(c, &b, NULL) != 0)
			__builtin_trap();
		for (size_t i = 0; i < a.n; i++)
			(void)rd_strlist_add_unique(&ua, a.v[i]);
		rd_strlist_sort_natural(&ua);
		rd_strlist_sort_natural(&b);
		ja = rd_strlist_join(&ua, " ");
		jb = rd_strlist_join(&b, " ");
		if (!ja || !jb || strcmp(ja, jb) != 0)
			__builtin_trap();
		free(ja);
		free(jb);
		free(c);
	}
	rd_strlist_free(&a);
	rd_strlist_free(&b);
	rd_strlist_free(&ua);
}

static void fleet_case(char *s)
{
	struct rd_fleet *f = rd_fleet_new();
	size_t line = 0;
	char *p = s, *nl;

	if (!f)
		return;
	while (p) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		(void)rd_fleet_feed(f, (line & 4) ? "a.json" : "-", line, p);
		p = nl ? nl + 1 : NULL;
	}
	(void)rd_fleet_source_end(f, "a.json");
	(void)rd_fleet_source_end(f, "-");
	(void)rd_fleet_analyze(f);
	{
		size_t n;
		const struct rd_fleet_fact *k = rd_fleet_facts(f, &n);

		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < k[i].nvals; j++)
				(void)rd_fleet_value_text(&k[i].vals[j]);
	}
	rd_fleet_free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 65536)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] & 1)
		fleet_case(s);
	else if (size < 512)
		hostlist_case(s);
	free(s);
	return 0;
}
