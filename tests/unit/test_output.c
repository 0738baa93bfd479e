// SPDX-License-Identifier: MIT
#include "unit.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

#include "output/output.h"
#include "output/outtable.h"
#include "output/outwidth.h"

static const struct rd_col cols[] = {
	{ "dev", "DEVICE", false, false },
	{ "ports", "PORTS", true, false },
	{ "state", "STATE", false, false },
};

/* The same calls render a table in text and an array of objects in JSON (t: -o, --raw...). */
static char *render_opts(bool json, bool color, const struct rd_out_table_opts *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rd_out *o;

	assert_non_null(f);
	o = rd_out_new(f, json, color);
	assert_non_null(o);
	if (t)
		rd_out_set_table_opts(o, t);
	assert_int_equal(rd_out_table_begin(o, NULL, cols, 3, true), 0);
	rd_out_row_begin(o);
	rd_out_cstr(o, RD_ANY, "dev", NULL, RD_C_NAME, "mlx5_0");
	rd_out_u64(o, RD_ANY, "ports", NULL, 2);
	rd_out_cstr(o, RD_ANY, "state", NULL, RD_C_GOOD, "ACTIVE");
	rd_out_str(o, RD_JSON, "extra", NULL, "json-only");
	rd_out_row_end(o);
	rd_out_row_begin(o);
	rd_out_str(o, RD_ANY, "dev", NULL, "rxe10");
	rd_out_u64(o, RD_ANY, "ports", NULL, 10);
	rd_out_str(o, RD_ANY, "state", NULL, NULL);	/* unknown */
	rd_out_row_end(o);
	rd_out_table_end(o);
	assert_int_equal(rd_out_finish(o), 0);
	fclose(f);
	return buf;
}

static char *render(bool json, bool color)
{
	return render_opts(json, color, NULL);
}

static void test_table_text(void **state)
{
	char *s = render(false, false);

	(void)state;
	assert_string_equal(s, "DEVICE  PORTS  STATE\n"
			       "mlx5_0      2  ACTIVE\n"
			       "rxe10      10  -\n");
	free(s);
}

/* Columns line up by what a terminal shows: wide (CJK) names take two columns,
 * combining marks none; a bidirectional override is escaped, never shown. */
static void test_table_display_width(void **state)
{
	char *buf = NULL, *e;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rd_out *o;

	(void)state;
	assert_non_null(f);
	o = rd_out_new(f, false, false);
	assert_int_equal(rd_out_table_begin(o, NULL, cols, 3, true), 0);
	rd_out_row_begin(o);
	rd_out_str(o, RD_ANY, "dev", NULL, "\xe8\x8a\x82\xe7\x82\xb9");	/* two wide: 4 columns */
	rd_out_u64(o, RD_ANY, "ports", NULL, 1);
	rd_out_str(o, RD_ANY, "state", NULL, "e\xcc\x81");	/* e + combining acute: 1 column */
	rd_out_row_end(o);
	rd_out_row_begin(o);
	rd_out_str(o, RD_ANY, "dev", NULL, "abcdef");
	rd_out_u64(o, RD_ANY, "ports", NULL, 1);
	rd_out_str(o, RD_ANY, "state", NULL, "x");
	rd_out_row_end(o);
	rd_out_table_end(o);
	assert_int_equal(rd_out_finish(o), 0);
	fclose(f);
	assert_string_equal(buf, "DEVICE  PORTS  STATE\n"
				 "\xe8\x8a\x82\xe7\x82\xb9        1  e\xcc\x81\n"
				 "abcdef      1  x\n");
	free(buf);
	e = rd_text_escape("evil\xe2\x80\xae" "exe.txt and \xe2\x81\xa6x\xe2\x81\xa9, \xc3\xa9", false);
	assert_non_null(e);
	assert_string_equal(e, "evil\\xe2\\x80\\xaeexe.txt and \\xe2\\x81\\xa6x\\xe2\\x81\\xa9, \xc3\xa9");
	free(e);
}

static void test_table_color(void **state)
{
	char *s = render(false, true);

	(void)state;
	/* Padding is computed on the visible text, not on escape codes. */
	assert_non_null(strstr(s, "\033[1mmlx5_0\033[0m      2  \033[32mACTIVE\033[0m\n"));
	free(s);
}

static void test_table_json(void **state)
{
	char *s = render(true, true);
	json_object *doc = json_tokener_parse(s), *row, *v;

	(void)state;
	assert_non_null(doc);
	assert_true(json_object_is_type(doc, json_type_array));
	assert_int_equal(json_object_array_length(doc), 2);
	row = json_object_array_get_idx(doc, 0);
	assert_true(json_object_object_get_ex(row, "dev", &v));
	assert_string_equal(json_object_get_string(v), "mlx5_0");
	assert_true(json_object_object_get_ex(row, "ports", &v));
	assert_true(json_object_is_type(v, json_type_int));
	assert_int_equal(json_object_get_int(v), 2);
	assert_true(json_object_object_get_ex(row, "extra", &v));
	row = json_object_array_get_idx(doc, 1);
	assert_false(json_object_object_get_ex(row, "state", &v));	/* absent is omitted */
	assert_null(strstr(s, "\033"));	/* never colour in JSON */
	json_object_put(doc);
	free(s);
}

static void test_sections(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rd_out *o = rd_out_new(f, false, false);

	(void)state;
	rd_out_section_begin(o, NULL, "rxe0");
	rd_out_str(o, RD_ANY, "fw_ver", NULL, "1.0");
	rd_out_str(o, RD_ANY, "board_id", NULL, NULL);
	rd_out_u64_fmt(o, RD_ANY, "lid", NULL, 26, "0x%x", 26);
	rd_out_section_begin(o, NULL, "port 1");
	rd_out_str(o, RD_ANY, "state", NULL, "ACTIVE");
	rd_out_section_end(o);
	rd_out_str(o, RD_ANY, "after", NULL, "x");
	rd_out_section_end(o);
	assert_int_equal(rd_out_finish(o), 0);
	fclose(f);
	assert_string_equal(buf, "rxe0\n"
				 "  fw_ver:                     1.0\n"
				 "  lid:                        0x1a\n"
				 "  port 1\n"
				 "    state:                    ACTIVE\n"
				 "  after:                      x\n");
	free(buf);
}

static void test_stream(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rd_out *o = rd_out_new(f, true, false);

	(void)state;
	rd_out_set_stream(o, true);
	for (int i = 0; i < 2; i++) {
		rd_out_section_begin(o, NULL, NULL);
		rd_out_u64(o, RD_ANY, "n", NULL, (uint64_t)i);
		rd_out_str(o, RD_ANY, "path", NULL, "a/b\"c");
		rd_out_section_end(o);
	}
	assert_int_equal(rd_out_finish(o), 0);
	fclose(f);
	assert_string_equal(buf, "{\"n\":0,\"path\":\"a/b\\\"c\"}\n{\"n\":1,\"path\":\"a/b\\\"c\"}\n");
	free(buf);
}

/*
 * The writer streams JSON without a tree; it must print what json-c printed
 * when the layer built json-c trees (documents pretty and spaced, streams
 * compact), so that every consumer and every expected output holds.  Random
 * documents (nesting, empty containers, NULL keys, escapes, UTF-8, edge
 * numbers, NaN) are written both ways and compared byte for byte.
 */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void rand_text(uint64_t *s, char *buf, size_t cap)
{
	static const char *const parts[] = {
		"mlx5_0", "a/b", "\"", "\\", "\n", "\t", "\r", "\b", "\f", "\x01", "\x1f",
		"\x7f", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", " ", "0x1", "",
		"{}[]:,", "</script>",
	};
	size_t n = rng_next(s) % 5, len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *p = parts[rng_next(s) % (sizeof(parts) / sizeof(parts[0]))];

		if (len + strlen(p) + 1 > cap)
			break;
		strcpy(buf + len, p);
		len += strlen(p);
	}
}

static void jc_add(json_object *parent, const char *key, json_object *v)
{
	if (json_object_is_type(parent, json_type_array))
		json_object_array_add(parent, v);
	else
		json_object_object_add(parent, key ? key : "value", v);
}

/* One member of a container, written to o and added to the json-c parent. */
static void rand_value(uint64_t *s, struct rd_out *o, json_object *parent, const char *key,
		       int depth)
{
	static const uint64_t nums[] = { 0, 1, 9, 10, 4294967295u, 18446744073709551615u,
					  1234567890123u };
	static const double dbls[] = { 0.5, 130.4, -2.25, 1e-7, 3e21, 100.0, 0.0, -0.0,
					 -7.0, 9999999999.0, 1e10, -1e10, 12345678901.0,
					 4503599627370497.0 };
	unsigned kind = (unsigned)(rng_next(s) % (depth < 5 ? 9 : 6));
	char text[64];
	json_object *c;

	switch (kind) {
	case 0:
	case 1:
		rand_text(s, text, sizeof(text));
		rd_out_str(o, RD_ANY, key, NULL, text);
		jc_add(parent, key, json_object_new_string(text));
		break;
	case 2: {
		uint64_t v = nums[rng_next(s) % 7];

		rd_out_u64(o, RD_ANY, key, NULL, v);
		jc_add(parent, key, json_object_new_uint64(v));
		break;
	}
	case 3: {
		bool v = rng_next(s) & 1;

		rd_out_bool(o, RD_ANY, key, NULL, v);
		jc_add(parent, key, json_object_new_boolean(v));
		break;
	}
	case 4: {
		double v = rng_next(s) % 9 ? dbls[rng_next(s) % 14] : NAN;
		char num[32];

		rd_out_double(o, RD_ANY, key, NULL, v, NULL);
		snprintf(num, sizeof(num), "%.10g", v);
		jc_add(parent, key, isfinite(v) ? json_object_new_double_s(v, num) : NULL);
		break;
	}
	case 5: {
		struct rd_strlist l = { 0 };
		const char *v[3] = { "a", "b\"", "\xc3\xa9" };

		l.v = (char **)v;
		l.n = rng_next(s) % 4;
		rd_out_strlist(o, RD_ANY, key, NULL, &l, ",");
		c = json_object_new_array();
		for (size_t i = 0; i < l.n; i++)
			json_object_array_add(c, json_object_new_string(v[i]));
		jc_add(parent, key, c);
		break;
	}
	default: {
		bool array = kind == 6;
		size_t n = rng_next(s) % 5;

		if (array) {
			rd_out_list_begin(o, key);
			c = json_object_new_array();
		} else {
			rd_out_section_begin(o, key, NULL);
			c = json_object_new_object();
		}
		jc_add(parent, key, c);
		for (size_t i = 0; i < n; i++) {
			char k[80];

			/* Keys unique in their object (json-c would replace a twin). */
			rand_text(s, text, sizeof(text));
			snprintf(k, sizeof(k), "k%zu%s", i, text);
			rand_value(s, o, c, i == 0 && rng_next(s) % 4 == 0 ? NULL : k, depth + 1);
		}
		if (array)
			rd_out_list_end(o);
		else
			rd_out_section_end(o);
	}
	}
}

static void test_matches_jsonc(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15u;

	(void)state;
	for (int doc = 0; doc < 400; doc++) {
		bool stream = doc & 1;
		int flags = JSON_C_TO_STRING_NOSLASHESCAPE |
			    (stream ? JSON_C_TO_STRING_PLAIN
				    : JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
		size_t tops = stream ? 1 + rng_next(&seed) % 3 : 1;
		char *buf = NULL, *want = NULL;
		size_t len = 0, wlen = 0;
		FILE *f = open_memstream(&buf, &len), *w = open_memstream(&want, &wlen);
		struct rd_out *o = rd_out_new(f, true, false);

		assert_non_null(o);
		rd_out_set_stream(o, stream);
		for (size_t t = 0; t < tops; t++) {
			bool array = rng_next(&seed) & 1;
			json_object *root = array ? json_object_new_array() : json_object_new_object();
			size_t n = rng_next(&seed) % 6;

			if (array)
				rd_out_list_begin(o, NULL);
			else
				rd_out_section_begin(o, NULL, NULL);
			for (size_t i = 0; i < n; i++) {
				char k[16];

				snprintf(k, sizeof(k), "key%zu", i);
				rand_value(&seed, o, root, k, 1);
			}
			if (array)
				rd_out_list_end(o);
			else
				rd_out_section_end(o);
			fprintf(w, "%s\n", json_object_to_json_string_ext(root, flags));
			json_object_put(root);
		}
		assert_int_equal(rd_out_finish(o), 0);
		fclose(f);
		fclose(w);
		if (strcmp(buf, want) != 0)
			fail_msg("document %d (%s) differs from json-c:\n--- writer\n%s--- json-c\n%s",
				 doc, stream ? "stream" : "pretty", buf, want);
		free(buf);
		free(want);
	}
}

/*
 * Strings are checked eight bytes at a time for what needs escaping: every
 * length up to 40, one byte of each kind at every place (first and last
 * byte of a word, across the overlapping last word), against json-c; a
 * byte that is not UTF-8 against its U+FFFD.
 */
static void test_escape_positions(void **state)
{
	static const char *const specials[] = { "\"", "\\", "\x01", "\x1f", "\n", "\x7f",
						 " ", "~", "\xc3\xa9", "\xe2\x82\xac", "\x80" };

	(void)state;
	for (size_t len = 0; len <= 40; len++) {
		for (size_t pos = 0; pos <= len; pos++) {
			for (size_t k = 0; k < sizeof(specials) / sizeof(specials[0]); k++) {
				char text[64], want[128], *buf = NULL;
				size_t blen = 0, sl = strlen(specials[k]);
				FILE *f = open_memstream(&buf, &blen);
				struct rd_out *o = rd_out_new(f, true, false);

				memset(text, 'x', len);
				text[len] = '\0';
				if (pos < len) {	/* pos == len: no special byte at all */
					memcpy(text + pos, specials[k], sl);
					memset(text + pos + sl, 'x', len - pos - 1);
					text[len + sl - 1] = '\0';
				}
				rd_out_set_stream(o, true);
				rd_out_list_begin(o, NULL);
				rd_out_str(o, RD_ANY, NULL, NULL, text);
				rd_out_list_end(o);
				assert_int_equal(rd_out_finish(o), 0);
				fclose(f);
				if (strcmp(specials[k], "\x80") == 0 && pos < len) {
					snprintf(want, sizeof(want), "[\"%.*s\xef\xbf\xbd%s\"]\n", (int)pos,
						 text, text + pos + 1);
				} else {
					json_object *js = json_object_new_array();

					json_object_array_add(js, json_object_new_string(text));
					snprintf(want, sizeof(want), "%s\n",
						 json_object_to_json_string_ext(js, JSON_C_TO_STRING_PLAIN |
										    JSON_C_TO_STRING_NOSLASHESCAPE));
					json_object_put(js);
				}
				if (strcmp(buf, want) != 0)
					fail_msg("length %zu, special %zu at %zu: got %s want %s", len, k,
						 pos, buf, want);
				free(buf);
			}
		}
	}
}

/* Bytes that are not UTF-8 become U+FFFD; containers left open are closed. */
static void test_json_edges(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rd_out *o = rd_out_new(f, true, false);

	(void)state;
	rd_out_section_begin(o, NULL, NULL);
	rd_out_str(o, RD_ANY, "bad", NULL, "a\xff" "b\xc3");
	rd_out_list_begin(o, "open");
	rd_out_u64(o, RD_ANY, NULL, NULL, 7);
	assert_int_equal(rd_out_finish(o), 0);
	fclose(f);
	assert_string_equal(buf, "{\n  \"bad\": \"a\xef\xbf\xbd" "b\xef\xbf\xbd\",\n"
				 "  \"open\": [\n    7\n  ]\n}\n");
	free(buf);
}

/* A DOT string: UTF-8 kept, quotes and backslashes escaped, controls dropped, bad bytes U+FFFD. */
static void test_dot_string(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	rd_dot_string(f, "sw1 Z\xc3\xbcrich \"a\\b\"\x01\x7f\xc2\x85 bad\xff\xc3");
	rd_dot_string(f, "");
	fclose(f);
	assert_string_equal(buf, "\"sw1 Z\xc3\xbcrich \\\"a\\\\b\\\" bad\xef\xbf\xbd\xef\xbf\xbd\"\"\"");
	free(buf);
}

/* XML text: entities, controls dropped, bad bytes U+FFFD, a cut after max_chars characters. */
static void test_xml_text(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	rd_xml_text(f, "sw1 Z\xc3\xbcrich <a&b> \"q\"\x01\x7f\xc2\x85 bad\xff\xc3 \xef\xbf\xbe|", 0);
	rd_xml_text(f, "", 0);
	rd_xml_text(f, "|h\xc3\xa9t\xc3\xa9 mlx5_0", 4);
	rd_xml_text(f, "|abc", 4);
	fclose(f);
	assert_string_equal(buf, "sw1 Z\xc3\xbcrich &lt;a&amp;b&gt; &quot;q&quot; bad\xef\xbf\xbd\xef\xbf\xbd "
				 "\xef\xbf\xbd||h\xc3\xa9t\xe2\x80\xa6|abc");
	free(buf);
}

/* One double in a JSON line, as the writer prints it: {"v":...}. */
static void double_json(double v, char *out, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	struct rd_out *o = rd_out_new(f, true, false);

	rd_out_set_stream(o, true);
	rd_out_section_begin(o, NULL, NULL);
	rd_out_double(o, RD_JSON, "v", NULL, v, NULL);
	rd_out_section_end(o);
	assert_int_equal(rd_out_finish(o), 0);
	fclose(f);
	snprintf(out, len, "%s", buf);
	free(buf);
}

static void check_double(double v)
{
	char got[64], want[64], num[32];

	double_json(v, got, sizeof(got));
	snprintf(num, sizeof(num), "%.10g", v);
	snprintf(want, sizeof(want), "{\"v\":%s}\n", isfinite(v) ? num : "null");
	if (strcmp(got, want) != 0)
		fail_msg("%.17g: wrote %s, printf %s", v, got, want);
}

/*
 * Doubles are written as "%.10g" prints them, also where the writer skips
 * printf (whole numbers; short decimals: rates rounded to 1e-3, intervals
 * to 1e-6): decimals of every length around each limit, as rdma-top makes
 * them, negative, near powers of ten, and random bit patterns.
 */
static void test_double_digits(void **state)
{
	static const double edges[] = { 1e-4, 9.9999e-5, 1e-4 - 1e-17, 0.1, 0.3, 1.0 / 3, 2.5,
					 999999999.5, 1e9, 1e9 - 0.001, 999999999.999, 9999999.999,
					 1e10 - 1, 1e10, 1e10 + 0.5, 123456.7890123, 1e-6, 5e-6,
					 0.000123456, 2.0000000000001, 1.9999999999999, -0.0, 0.0,
					 1e15, 1e300, 5e-324, INFINITY, NAN };
	static const double units[] = { 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7 };
	uint64_t r = 0x5eed;

	(void)state;
	for (size_t i = 0; i < RD_ARRAY_SIZE(edges); i++) {
		check_double(edges[i]);
		check_double(-edges[i]);
	}
	for (size_t u = 0; u < RD_ARRAY_SIZE(units); u++) {
		for (int i = 0; i < 20000; i++) {
			/* k of 1 to 11 digits, rounded as rdma-top's round_to does */
			uint64_t k = rng_next(&r) % (uint64_t)pow(10, 1 + rng_next(&r) % 11);
			double v = round((double)k * units[u] / units[u]) * units[u];

			check_double(v);
			check_double(-v);
			check_double(v * (1 + 1e-11));
			check_double(nextafter(v, 0));
		}
	}
	for (int i = 0; i < 100000; i++) {
		uint64_t bits = rng_next(&r);
		double v;

		memcpy(&v, &bits, sizeof(v));
		check_double(v);
		check_double(ldexp((double)(bits >> 11), -(int)(bits % 60)));
	}
}

/*
 * What one set of calls writes, with keys as strings (how 0), measured once
 * (1), or the same members given to rd_out_object_name (2).
 */
static char *render_keys(bool json, bool stream, const char *const *keys, size_t n, int how)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rd_out *o = rd_out_new(f, json, false);

	rd_out_set_stream(o, stream);
	rd_out_section_begin(o, NULL, "top");
	for (size_t i = 0; i < n; i++) {
		struct rd_name k;

		rd_name_set(&k, keys[i]);
		if (how == 2) {
			const struct rd_out_member m[] = {
				{ &k, RD_ANY, RD_OUT_U64, .u = 1000000 + i },
				{ &k, RD_ANY, RD_OUT_DOUBLE, .d = 0.5 + (double)i, .textfmt = "%.1f" },
				{ &k, RD_TEXT, RD_OUT_U64, .u = i },
				{ &k, RD_JSON, RD_OUT_DOUBLE, .d = 1.0 / 3 },
				{ &k, RD_JSON, RD_OUT_BOOL, .b = i & 1 },
				{ &k, RD_ANY, RD_OUT_U64, .u = UINT64_MAX - i },
				{ &k, RD_JSON, RD_OUT_DOUBLE, .d = -(double)i / 8 },
			};

			assert_int_equal(rd_out_object_name(o, &k, m, i % (RD_ARRAY_SIZE(m) + 1)), 0);
			continue;
		}
		if (how == 1)
			rd_out_section_begin_name(o, &k);
		else
			rd_out_section_begin(o, keys[i], NULL);
		for (size_t j = 0; j < i % 8; j++) {
			switch (j) {
			case 0:
				if (how == 1)
					rd_out_u64_name(o, RD_ANY, &k, 1000000 + i);
				else
					rd_out_u64(o, RD_ANY, keys[i], NULL, 1000000 + i);
				break;
			case 1:
				if (how == 1)
					rd_out_double_name(o, RD_ANY, &k, 0.5 + (double)i, "%.1f");
				else
					rd_out_double(o, RD_ANY, keys[i], NULL, 0.5 + (double)i, "%.1f");
				break;
			case 2:
				if (how == 1)
					rd_out_u64_name(o, RD_TEXT, &k, i);
				else
					rd_out_u64(o, RD_TEXT, keys[i], NULL, i);
				break;
			case 3:
				if (how == 1)
					rd_out_double_name(o, RD_JSON, &k, 1.0 / 3, NULL);
				else
					rd_out_double(o, RD_JSON, keys[i], NULL, 1.0 / 3, NULL);
				break;
			case 4:
				rd_out_bool(o, RD_JSON, keys[i], NULL, i & 1);
				break;
			case 5:
				rd_out_u64(o, RD_ANY, keys[i], NULL, UINT64_MAX - i);
				break;
			default:
				rd_out_double(o, RD_JSON, keys[i], NULL, -(double)i / 8, NULL);
				break;
			}
		}
		rd_out_section_end(o);
	}
	rd_out_section_end(o);
	assert_int_equal(rd_out_finish(o), 0);
	fclose(f);
	return buf;
}

/*
 * Keys measured once (rd_name_set), and objects written in one piece
 * (rd_out_object_name), write what the same keys as strings write, in text,
 * a document and JSON lines: plain keys, keys to escape, empty and long ones,
 * keys of every length to 40 (the copy of a plain key goes by words), objects
 * of 0 to 7 members; and enough of them that the JSON buffer (64 KiB) is
 * flushed in the middle of objects.  rd_name_set tells plain from not.
 */
static void test_named_keys(void **state)
{
	static const char *const odd[] = { "port_rcv_data", "", "v", "quote\"d", "back\\slash",
					   "tab\there", "\xc3\xa9t\xc3\xa9", "\x7f",
					   "a_counter_name_longer_than_thirty_two_bytes" };
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_ABCDEFGHIJ";
	enum { NLEN = 41, NKEYS = 2400 };
	char lens[NLEN][NLEN + 1];
	const char *keys[NKEYS];
	struct rd_name k;

	(void)state;
	for (size_t l = 0; l < NLEN; l++) {
		memcpy(lens[l], alphabet + l % 7, l);
		lens[l][l] = '\0';
	}
	for (size_t i = 0; i < NKEYS; i++)
		keys[i] = i % 5 == 4 ? odd[i / 5 % RD_ARRAY_SIZE(odd)] : lens[i % NLEN];
	for (int mode = 0; mode < 3; mode++) {
		char *a = render_keys(mode > 0, mode == 2, keys, NKEYS, 0);

		if (mode == 2)
			assert_true(strlen(a) > 2 * 65536);
		for (int how = 1; how <= 2; how++) {
			char *b = render_keys(mode > 0, mode == 2, keys, NKEYS, how);

			assert_string_equal(b, a);
			free(b);
		}
		free(a);
	}
	rd_name_set(&k, "port_xmit_wait");
	assert_true(k.plain);
	assert_int_equal(k.len, 14);
	for (size_t i = 3; i < RD_ARRAY_SIZE(odd) - 1; i++) {
		rd_name_set(&k, odd[i]);
		assert_false(k.plain);
		assert_int_equal(k.len, strlen(odd[i]));
	}
}

/* -o picks columns by header in any case, in its order; --noheadings; a table
 * with none of them is not printed; --raw is util-linux's (blanks \x20). */
static void test_table_options(void **state)
{
	struct rd_out_table_opts t = { .columns = "state,Device" };
	char *s = render_opts(false, false, &t);

	(void)state;
	assert_string_equal(s, "STATE   DEVICE\n"
			       "ACTIVE  mlx5_0\n"
			       "-       rxe10\n");
	free(s);
	t = (struct rd_out_table_opts){ .columns = "ports", .noheadings = true };
	s = render_opts(false, false, &t);
	assert_string_equal(s, " 2\n10\n");
	free(s);
	t = (struct rd_out_table_opts){ .columns = "nosuch" };
	s = render_opts(false, false, &t);
	assert_string_equal(s, "");
	free(s);
	t = (struct rd_out_table_opts){ .raw = true };
	s = render_opts(false, true, &t);
	assert_string_equal(s, "DEVICE PORTS STATE\n"
			       "mlx5_0 2 ACTIVE\n"
			       "rxe10 10 -\n");
	free(s);
	/* JSON is not shaped by them */
	t = (struct rd_out_table_opts){ .columns = "ports", .noheadings = true };
	s = render_opts(true, false, &t);
	assert_non_null(strstr(s, "\"state\": \"ACTIVE\""));
	free(s);
}

static void test_columns_check(void **state)
{
	static const struct rd_col more[] = {
		{ "peer_port", "PEER PORT", true, false },
		{ "dev", "DEV", false, false },
	};
	const struct rd_out_colset sets[] = { { cols, 3 }, { more, 2 } };
	char *bad = NULL, *known;

	(void)state;
	assert_int_equal(rd_out_columns_check("device,STATE,peer_port,dev", sets, 2, &bad), 0);
	assert_null(bad);
	assert_int_equal(rd_out_columns_check("device,sate", sets, 2, &bad), -ENOENT);
	assert_string_equal(bad, "sate");
	free(bad);
	assert_int_equal(rd_out_columns_check("device,,state", sets, 2, &bad), -EINVAL);
	free(bad);
	assert_int_equal(rd_out_columns_check("peer port", sets, 2, &bad), -ENOENT);
	free(bad);
	known = rd_out_columns_known(sets, 2);
	assert_string_equal(known, "DEVICE PORTS STATE PEER_PORT DEV");
	free(known);
}

/*
 * On a terminal: the wrap column takes the room left and breaks at spaces, a
 * path before a '/', a GID after a ':', a list after a ','.
 */
static void test_scols_wrap(void **state)
{
	static const struct rd_col wcols[] = {
		{ "id", "ID", false, false },
		{ "why", "WHY", false, true },
	};
	const struct rd_tcell cells[] = {
		{ "a.b", 3, RD_C_NONE },
		{ "one two three four five six seven eight nine ten", 48, RD_C_NONE },
		{ "c", 1, RD_C_NONE },
		{ "x_word_longer_than_the_column_is_cut", 36, RD_C_NONE },
		{ "d", 1, RD_C_NONE },
		{ "echo 1 > /sys/class/net/ens1f0/ecn/enable", 41, RD_C_NONE },
		{ "g", 1, RD_C_NONE },
		{ "fe80:0000:0000:0000:0e42:a1ff:fe65:8b1e", 39, RD_C_NONE },
		{ "n", 1, RD_C_NONE },
		{ "bond0,ens1f0,ens1f1", 19, RD_C_NONE },
	};
	const size_t show[] = { 0, 1 };
	const struct rd_tview v = { .cols = wcols, .ncols = 2, .show = show, .nshow = 2,
				    .cells = cells, .rows = 5, .header = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	assert_int_equal(rd_out_scols_print(f, &v, false, false, 20), 0);
	fclose(f);
	assert_string_equal(buf, "ID   WHY\n"
				 "a.b  one two three\n"
				 "     four five six\n"
				 "     seven eight\n"
				 "     nine ten\n"
				 "c    x_word_longer_t\n"
				 "     han_the_column_\n"
				 "     is_cut\n"
				 "d    echo 1 >\n"
				 "     /sys/class/net\n"
				 "     /ens1f0/ecn\n"
				 "     /enable\n"
				 "g    fe80:0000:0000:\n"
				 "     0000:0e42:a1ff:\n"
				 "     fe65:8b1e\n"
				 "n    bond0,ens1f0,\n"
				 "     ens1f1\n");
	free(buf);
}

/*
 * Wide characters take two columns each: a wrap column of CJK text breaks
 * by terminal columns (the old code counted code points and overflowed),
 * and a word wider than the column is cut between characters.
 */
static void test_scols_wrap_wide(void **state)
{
	static const struct rd_col wcols[] = {
		{ "id", "ID", false, false },
		{ "why", "WHY", false, true },
	};
	static const char why1[] = "\u4ea4\u6362\u673a \u673a\u67b6\u4e00 \u7aef\u53e3\u4e8c "
				   "\u94fe\u8def\u964d\u7ea7";
	static const char why2[] = "\u4e00\u4e8c\u4e09\u56db\u4e94\u516d\u4e03\u516b\u4e5d\u5341";
	const struct rd_tcell cells[] = {
		{ "a.b", 3, RD_C_NONE },
		{ why1, 29, RD_C_NONE },
		{ "c", 1, RD_C_NONE },
		{ why2, 20, RD_C_NONE },
	};
	const size_t show[] = { 0, 1 };
	const struct rd_tview v = { .cols = wcols, .ncols = 2, .show = show, .nshow = 2,
				    .cells = cells, .rows = 2, .header = true };
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, nlines = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	setenv("LC_ALL", "C.UTF-8", 1);
	assert_int_equal(rd_out_scols_print(f, &v, false, false, 20), 0);
	unsetenv("LC_ALL");
	fclose(f);
	assert_string_equal(buf, "ID   WHY\n"
				 "a.b  \u4ea4\u6362\u673a \u673a\u67b6\u4e00\n"
				 "     \u7aef\u53e3\u4e8c \u94fe\u8def\u964d\u7ea7\n"
				 "c    \u4e00\u4e8c\u4e09\u56db\u4e94\u516d\u4e03\n"
				 "     \u516b\u4e5d\u5341\n");
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save), nlines++)
		assert_true(rd_out_text_cols(line, SIZE_MAX) <= 20);
	assert_int_equal(nlines, 5);
	free(buf);
}

static void test_color_mode(void **state)
{
	bool c;

	(void)state;
	assert_int_equal(rd_color_mode("always", 1, &c), 0);
	assert_true(c);
	assert_int_equal(rd_color_mode("never", 1, &c), 0);
	assert_false(c);
	assert_int_equal(rd_color_mode("bogus", 1, &c), -EINVAL);
	setenv("NO_COLOR", "1", 1);
	assert_int_equal(rd_color_mode("auto", 1, &c), 0);
	assert_false(c);
	unsetenv("NO_COLOR");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_text),
		cmocka_unit_test(test_table_display_width),
		cmocka_unit_test(test_table_color),
		cmocka_unit_test(test_table_json),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_matches_jsonc),
		cmocka_unit_test(test_escape_positions),
		cmocka_unit_test(test_json_edges),
		cmocka_unit_test(test_dot_string),
		cmocka_unit_test(test_xml_text),
		cmocka_unit_test(test_double_digits),
		cmocka_unit_test(test_named_keys),
		cmocka_unit_test(test_color_mode),
		cmocka_unit_test(test_scols_wrap_wide),
		cmocka_unit_test(test_table_options),
		cmocka_unit_test(test_columns_check),
		cmocka_unit_test(test_scols_wrap),
	};

	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
