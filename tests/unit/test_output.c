// SPDX-License-Identifier: MIT
#include "unit.h"

#include <json-c/json.h>

#include "output/output.h"

static const struct rd_col cols[] = {
	{ "dev", "DEVICE", false },
	{ "ports", "PORTS", true },
	{ "state", "STATE", false },
};

/* The same calls render a table in text and an array of objects in JSON. */
static char *render(bool json, bool color)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct rd_out *o;

	assert_non_null(f);
	o = rd_out_new(f, json, color);
	assert_non_null(o);
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

static void test_table_text(void **state)
{
	char *s = render(false, false);

	(void)state;
	assert_string_equal(s, "DEVICE  PORTS  STATE\n"
			       "mlx5_0      2  ACTIVE\n"
			       "rxe10      10  -\n");
	free(s);
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
		cmocka_unit_test(test_table_color),
		cmocka_unit_test(test_table_json),
		cmocka_unit_test(test_sections),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_color_mode),
	};

	return cmocka_run_group_tests_name("output", tests, NULL, NULL);
}
