// SPDX-License-Identifier: GPL-2.0
/* Unit tests for "secmap dump" output: module selection, JSON and table rendering. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "kselftest_harness.h"

#include "dump_ko.h"
#include "internal.h"
#include "json_out.h"
#include "msg.h"
#include "secmap_cli.h"

static const uint8_t build_id[20] = {
	0x3f, 0x2a, 0x9c, 0x01, 0x00, 0xff, 0x10, 0x20, 0x30, 0x40,
	0x50, 0x60, 0x70, 0x80, 0x90, 0xa0, 0xb0, 0xc0, 0xd0, 0xe1,
};

FIXTURE(dump) {
	struct secmap_snapshot *snap;
	const struct secmap_module **mods;
	size_t nr_mods;
	char *out;
	size_t out_len;
	FILE *f;
};

/* Three modules as the kernel would send them, in this order. */
FIXTURE_SETUP(dump)
{
	char *buf = calloc(1, 4096);
	struct nlmsghdr *nlh;
	const char *missing = NULL;

	ASSERT_NE(NULL, buf);
	self->snap = libsecmap_snapshot_new();
	ASSERT_NE(NULL, self->snap);

	/* Live, its init section freed; a build-id, tainted O and E. */
	nlh = msg_module(buf, "dummy");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0x3000, build_id, sizeof(build_id));
	msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0564000ULL, 8192);
	msg_region(nlh, SECMAP_REGION_DATA, 0xffffffffc0566000ULL, 4096);
	msg_section_full(nlh, ".text", 0xffffffffc0564000ULL, 0, SECMAP_REGION_TEXT);
	msg_section_full(nlh, ".data", 0xffffffffc0566000ULL, 0, SECMAP_REGION_DATA);
	msg_section_full(nlh, ".init.text", 0xffffffffc0568000ULL,
			 SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, -1);
	ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, self->snap));

	/* Still in its init function; no build-id. */
	nlh = msg_module(buf, "snd_hda_codec_generic");
	msg_module_info(nlh, SECMAP_MODULE_STATE_COMING, 0, NULL, 0);
	msg_region(nlh, SECMAP_REGION_INIT_TEXT, 0xffffffffc0a01000ULL, 4096);
	msg_section_full(nlh, ".init.text", 0xffffffffc0a01000ULL, SECMAP_SECTION_F_INIT,
			 SECMAP_REGION_INIT_TEXT);
	ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, self->snap));

	/* As the first secmap sent it: a name and nothing else. */
	nlh = msg_module(buf, "empty");
	ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, self->snap));
	free(buf);

	ASSERT_EQ(0, dump_select(self->snap, NULL, 0, &self->mods, &self->nr_mods, &missing));
	ASSERT_EQ(3U, self->nr_mods);

	json_output = false;
	pretty_output = false;
	self->f = open_memstream(&self->out, &self->out_len);
	ASSERT_NE(NULL, self->f);
}

FIXTURE_TEARDOWN(dump)
{
	if (self->f)
		fclose(self->f);
	free(self->out);
	free(self->mods);
	secmap_snapshot_free(self->snap);
}

/* Close the memstream so that its buffer is complete, and return it. */
static const char *finish_stream(FILE **f, char **out)
{
	fclose(*f);
	*f = NULL;
	return *out;
}

#define finish(self) finish_stream(&(self)->f, &(self)->out)

TEST_F(dump, json_exact)
{
	ASSERT_EQ(0, dump_print_json(self->f, self->mods, self->nr_mods));
	EXPECT_STREQ("{\"source\":\"netlink\",\"modules\":["
		     "{\"name\":\"dummy\",\"state\":\"live\",\"taint\":12288,"
		     "\"build_id\":\"3f2a9c0100ff102030405060708090a0b0c0d0e1\","
		     "\"regions\":["
		     "{\"type\":\"text\",\"base\":\"0xffffffffc0564000\",\"size\":8192},"
		     "{\"type\":\"data\",\"base\":\"0xffffffffc0566000\",\"size\":4096}],"
		     "\"sections\":["
		     "{\"name\":\".text\",\"addr\":\"0xffffffffc0564000\",\"size\":null,"
		     "\"pgoff\":null,\"init\":false,\"freed\":false,\"region\":\"text\"},"
		     "{\"name\":\".data\",\"addr\":\"0xffffffffc0566000\",\"size\":null,"
		     "\"pgoff\":null,\"init\":false,\"freed\":false,\"region\":\"data\"},"
		     "{\"name\":\".init.text\",\"addr\":\"0xffffffffc0568000\",\"size\":null,"
		     "\"pgoff\":null,\"init\":true,\"freed\":true,\"region\":null}]},"
		     "{\"name\":\"snd_hda_codec_generic\",\"state\":\"coming\",\"taint\":0,"
		     "\"build_id\":null,"
		     "\"regions\":["
		     "{\"type\":\"init_text\",\"base\":\"0xffffffffc0a01000\",\"size\":4096}],"
		     "\"sections\":["
		     "{\"name\":\".init.text\",\"addr\":\"0xffffffffc0a01000\",\"size\":null,"
		     "\"pgoff\":null,\"init\":true,\"freed\":false,\"region\":\"init_text\"}]},"
		     "{\"name\":\"empty\",\"state\":null,\"taint\":0,\"build_id\":null,"
		     "\"regions\":[],\"sections\":[]}"
		     "]}\n", finish(self));
}

TEST_F(dump, json_small_addr_not_padded)
{
	char buf[512];
	struct nlmsghdr *nlh = msg_module(memset(buf, 0, sizeof(buf)), "lo");
	struct secmap_snapshot *snap = libsecmap_snapshot_new();
	const struct secmap_module *mod;

	ASSERT_NE(NULL, snap);
	msg_section(nlh, ".bss", 0x1000, 0);
	ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, snap));
	mod = secmap_snapshot_module(snap, 0);
	EXPECT_EQ(0, dump_print_json(self->f, &mod, 1));
	secmap_snapshot_free(snap);
	EXPECT_STREQ("{\"source\":\"netlink\",\"modules\":[{\"name\":\"lo\",\"state\":null,"
		     "\"taint\":0,\"build_id\":null,\"regions\":[],\"sections\":"
		     "[{\"name\":\".bss\",\"addr\":\"0x1000\",\"size\":null,\"pgoff\":null,"
		     "\"init\":false,\"freed\":false,\"region\":null}]}]}\n", finish(self));
}

TEST_F(dump, json_pretty_same_document)
{
	struct json_object *plain, *pretty;
	const char *out;

	plain = dump_build_json(self->mods, self->nr_mods);
	ASSERT_NE(NULL, plain);
	pretty_output = true;
	ASSERT_EQ(0, dump_print_json(self->f, self->mods, self->nr_mods));
	out = finish(self);
	/* Indented over several lines, yet the same document. */
	EXPECT_NE(NULL, strstr(out, "\n  \"source\": \"netlink\",\n  \"modules\": [\n"));
	pretty = json_tokener_parse(out);
	ASSERT_NE(NULL, pretty);
	EXPECT_TRUE(json_object_equal(plain, pretty));
	json_object_put(pretty);
	json_object_put(plain);
}

/* What json-c prints for @root in compact form, as dump did before streaming. */
static char *json_c_plain(struct json_object *root)
{
	const char *s = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PLAIN |
						       JSON_C_TO_STRING_NOSLASHESCAPE);
	char *out = NULL;

	if (s && asprintf(&out, "%s\n", s) < 0)
		out = NULL;
	return out;
}

/*
 * The streamed output is json-c's, byte for byte: names with every kind
 * of character, .ko fields known and not, paths to escape, and more than
 * the stream's buffer holds (a name longer than it, too).
 */
TEST_F(dump, json_stream_same_bytes_as_json_c)
{
	static const char *const odd[] = {
		"quote\"", "back\\slash", "slash/ok", "tab\there", "nl\ncr\r", "\x01\x1f\x7f",
		"caf\xc3\xa9 \xe2\x82\xac", "\xff\xfe bytes", "<script>", "\b\f",
	};
	size_t size = 1 << 20, i, j, nr;
	char *buf = calloc(1, size), *big = malloc(100000), *want, name[64];
	struct secmap_snapshot *snap = libsecmap_snapshot_new();
	const struct secmap_module **mods = NULL;
	const char *missing = NULL;
	struct json_object *root;
	struct dump_ko *kos;
	struct nlmsghdr *nlh;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, big);
	ASSERT_NE(NULL, snap);
	/* Longer than the stream's buffer; the name, as long as netlink allows. */
	memset(big, 'b', 99999);
	big[99999] = '\0';
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "mod_%zu", i);
		nlh = msg_module(buf, name);
		msg_module_info(nlh, i % 3, i * 0x1001, i % 2 ? build_id : NULL,
				i % 2 ? sizeof(build_id) : 0);
		msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0000000ULL + i, i);
		msg_region(nlh, 99, 0, UINT64_MAX);
		for (j = 0; j < 600; j++) {
			const char *sec = j < 10 ? odd[j] : j == 10 && i == 1 ? big + 40000 : NULL;

			snprintf(name, sizeof(name), ".text.%zu", j);
			msg_section_full(nlh, sec ? sec : name, j == 11 ? 0 : UINT64_MAX - j,
					 (uint32_t)j % 4, (int)(j % 10) - 1);
		}
		ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, snap));
	}
	ASSERT_EQ(0, dump_select(snap, NULL, 0, &mods, &nr, &missing));
	kos = calloc(nr, sizeof(*kos));
	ASSERT_NE(NULL, kos);
	/*
	 * Module 0: no .ko; 1: a path to escape; 2, 3: every other section
	 * known; 3: a path longer than the stream's buffer.
	 */
	for (i = 1; i < nr; i++) {
		ASSERT_LE(0, asprintf(&kos[i].path, i == 1 ? "/tmp/a \"b\"\\c\n.ko" :
				      "/lib/modules/r/m%zu%s.ko.xz", i, i == 3 ? big : ""));
		if (i < 2)
			continue;
		kos[i].secs = calloc(600, sizeof(*kos[i].secs));
		ASSERT_NE(NULL, kos[i].secs);
		for (j = 0; j < 600; j += 2) {
			kos[i].secs[j].found = true;
			kos[i].secs[j].s.size = j * 1000;
			kos[i].secs[j].s.offset = UINT64_MAX - j;
			kos[i].secs[j].s.flags = j % 4 ? 0x4 : 0x2;
			kos[i].secs[j].s.nr_symbols = j;
		}
	}

	/* With and without the .ko fields. */
	for (i = 0; i < 2; i++) {
		char *got = NULL;
		size_t len = 0;
		FILE *f;

		root = dump_build_json_ko(mods, nr, i ? kos : NULL);
		ASSERT_NE(NULL, root);
		want = json_c_plain(root);
		ASSERT_NE(NULL, want);
		json_object_put(root);
		f = open_memstream(&got, &len);
		ASSERT_NE(NULL, f);
		ASSERT_EQ(0, dump_print_json_ko(f, mods, nr, i ? kos : NULL));
		fclose(f);
		EXPECT_GT(len, (size_t)(1 << 17));
		EXPECT_EQ(strlen(want), len);
		EXPECT_STREQ(want, got);
		free(got);
		free(want);
	}
	dump_ko_free(kos, nr);
	free(mods);
	secmap_snapshot_free(snap);
	free(big);
	free(buf);
}

/*
 * Every byte value in a string comes out as json-c writes it; a lone byte
 * of 0x80 or more, invalid UTF-8, as U+FFFD (the documented choice).
 */
TEST_F(dump, json_stream_escapes_as_json_c)
{
	struct json_object *str;
	char text[8], *want, *got;
	struct json_out *o;
	unsigned int c;
	size_t len;
	FILE *f;

	for (c = 1; c < 256; c++) {
		snprintf(text, sizeof(text), "a%cz", c);
		str = json_object_new_string(c < 0x80 ? text : "a\xef\xbf\xbdz");
		ASSERT_NE(NULL, str);
		want = json_c_plain(str);
		json_object_put(str);
		ASSERT_NE(NULL, want);
		got = NULL;
		f = open_memstream(&got, &len);
		ASSERT_NE(NULL, f);
		o = json_out_stream(f);
		json_out_str(o, NULL, text);
		ASSERT_EQ(0, json_out_finish(o, NULL));
		fclose(f);
		EXPECT_STREQ(want, got) {
			TH_LOG("byte 0x%02x", c);
		}
		free(got);
		free(want);
	}
}

/* @text through python3's strict UTF-8 decoder and json.loads(): 0 if both accept it. */
static int python_parses(const char *text)
{
	FILE *p = popen("python3 -c 'import json, sys; "
			"json.loads(sys.stdin.buffer.read().decode(\"utf-8\", \"strict\"))' "
			"2>/dev/null", "w");
	int st;

	if (!p)
		return -1;
	fputs(text, p);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/*
 * Names are any bytes but NUL: an ANSI escape, invalid UTF-8, a C1
 * control. JSON (stream and --pretty) still parses as UTF-8; the table
 * sends no control character to the terminal.
 */
TEST(hostile_names)
{
	static const char *const names[] = {
		"red\x1b[31mmod", "latin1\xe9\xff", "\xc0\x80overlong", "c1\xc2\x9bx",
		"surrogate\xed\xa0\x80", "ok_\xf0\x9f\x98\x80", "cut\xe2\x82",
	};
	struct secmap_snapshot *snap = libsecmap_snapshot_new();
	const struct secmap_module **mods = NULL;
	char *buf = calloc(1, 4096), *out = NULL;
	const char *missing = NULL;
	struct json_object *root;
	struct nlmsghdr *nlh;
	size_t i, len, nr;
	FILE *f;

	ASSERT_NE(NULL, snap);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		nlh = msg_module(buf, names[i]);
		msg_section_full(nlh, names[(i + 1) % 7], 0xffffffffc0000000ULL + i, 0, -1);
		ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, snap));
	}
	ASSERT_EQ(0, dump_select(snap, NULL, 0, &mods, &nr, &missing));
	ASSERT_EQ(7U, nr);

	f = open_memstream(&out, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, dump_print_json_ko(f, mods, nr, NULL));
	fclose(f);
	EXPECT_EQ(0, python_parses(out)) TH_LOG("%s", out);
	/* The valid 4-byte character is kept as it is; the rest replaced. */
	EXPECT_NE(NULL, strstr(out, "ok_\xf0\x9f\x98\x80"));
	EXPECT_NE(NULL, strstr(out, "latin1\xef\xbf\xbd\xef\xbf\xbd"));
	free(out);

	root = dump_build_json_ko(mods, nr, NULL);
	ASSERT_NE(NULL, root);
	pretty_output = true;
	out = NULL;
	f = open_memstream(&out, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, print_json(f, root));
	fclose(f);
	pretty_output = false;
	json_object_put(root);
	EXPECT_EQ(0, python_parses(out)) TH_LOG("%s", out);
	free(out);

	out = NULL;
	f = open_memstream(&out, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, dump_print_table(f, mods, nr));
	fclose(f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)out[i];

		ASSERT_TRUE(c == '\n' || (c >= 0x20 && c != 0x7f)) TH_LOG("byte %zu: 0x%02x", i, c);
		/* C1 controls as UTF-8 (U+0080 to U+009F) are escaped too. */
		ASSERT_FALSE(c == 0xc2 && i + 1 < len && (unsigned char)out[i + 1] >= 0x80 &&
			     (unsigned char)out[i + 1] <= 0x9f);
	}
	EXPECT_NE(NULL, strstr(out, "red\\x1b[31mmod"));
	EXPECT_NE(NULL, strstr(out, "c1\\xc2\\x9bx"));
	EXPECT_NE(NULL, strstr(out, "ok_\xf0\x9f\x98\x80"));
	free(out);
	free(mods);
	secmap_snapshot_free(snap);
	free(buf);
}

/* Numbers, hex strings, booleans and nulls: the stream and the tree agree. */
TEST_F(dump, json_stream_values_as_json_c)
{
	static const uint64_t vals[] = {
		0, 1, 9, 10, 15, 16, 255, 4096, 0xffffffffULL, 0x100000000ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, UINT64_MAX - 1, UINT64_MAX,
	};
	struct json_object *root;
	struct json_out *o;
	char *want = NULL;
	size_t i, k;

	for (k = 0; k < 2; k++) {
		o = k ? json_out_stream(self->f) : json_out_tree();
		ASSERT_NE(NULL, o);
		json_out_object_begin(o, NULL);
		json_out_array_begin(o, "u64");
		for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			json_out_u64(o, NULL, vals[i]);
		json_out_array_end(o);
		json_out_array_begin(o, "hex");
		for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
			json_out_hex(o, NULL, vals[i]);
		json_out_array_end(o);
		json_out_array_begin(o, "empty");
		json_out_array_end(o);
		json_out_object_begin(o, "obj");
		json_out_bool(o, "t", true);
		json_out_bool(o, "f", false);
		json_out_null(o, "n");
		json_out_str(o, "s", NULL);
		json_out_object_end(o);
		json_out_object_end(o);
		if (!k) {
			ASSERT_EQ(0, json_out_finish(o, &root));
			want = json_c_plain(root);
			json_object_put(root);
			ASSERT_NE(NULL, want);
			continue;
		}
		ASSERT_EQ(0, json_out_finish(o, NULL));
		EXPECT_STREQ(want, finish(self));
		EXPECT_NE(NULL, strstr(want, "[\"0x0\",\"0x1\",\"0x9\",\"0xa\",\"0xf\",\"0x10\","));
		EXPECT_NE(NULL, strstr(want, ",\"0xffffffffffffffff\"]"));
		EXPECT_NE(NULL, strstr(want, "[0,1,9,10,15,16,255,"));
		EXPECT_NE(NULL, strstr(want, ",18446744073709551615]"));
		free(want);
	}
}

/* Calls that do not describe one well-formed value fail, and say so at the end. */
TEST_F(dump, json_out_misuse)
{
	struct json_object *root = (struct json_object *)1;
	struct json_out *o;
	size_t k;

	for (k = 0; k < 2; k++) {
		/* A key inside an array; none inside an object; at the top. */
		o = k ? json_out_stream(self->f) : json_out_tree();
		json_out_array_begin(o, NULL);
		json_out_u64(o, "k", 1);
		EXPECT_EQ(-EINVAL, json_out_finish(o, k ? NULL : &root));
		o = k ? json_out_stream(self->f) : json_out_tree();
		json_out_object_begin(o, NULL);
		json_out_u64(o, NULL, 1);
		EXPECT_EQ(-EINVAL, json_out_finish(o, k ? NULL : &root));
		o = k ? json_out_stream(self->f) : json_out_tree();
		json_out_u64(o, "k", 1);
		EXPECT_EQ(-EINVAL, json_out_finish(o, k ? NULL : &root));
		/* Unbalanced, unfinished, two top-level values */
		o = k ? json_out_stream(self->f) : json_out_tree();
		json_out_object_begin(o, NULL);
		json_out_array_end(o);
		EXPECT_EQ(-EINVAL, json_out_finish(o, k ? NULL : &root));
		o = k ? json_out_stream(self->f) : json_out_tree();
		json_out_object_begin(o, NULL);
		EXPECT_EQ(-EINVAL, json_out_finish(o, k ? NULL : &root));
		o = k ? json_out_stream(self->f) : json_out_tree();
		json_out_null(o, NULL);
		json_out_null(o, NULL);
		EXPECT_EQ(-EINVAL, json_out_finish(o, k ? NULL : &root));
		/* A failure met by the caller sticks. */
		o = k ? json_out_stream(self->f) : json_out_tree();
		json_out_fail(o, -ENOMEM);
		json_out_null(o, NULL);
		EXPECT_EQ(-ENOMEM, json_out_finish(o, k ? NULL : &root));
		EXPECT_EQ(NULL, root);
	}
	/* Out of memory before the first call. */
	EXPECT_EQ(-ENOMEM, json_out_finish(NULL, &root));
	/* Nothing reached the stream: no newline for a document that failed. */
	EXPECT_STREQ("", finish(self));
}

TEST_F(dump, json_empty)
{
	EXPECT_EQ(0, dump_print_json(self->f, self->mods, 0));
	EXPECT_STREQ("{\"source\":\"netlink\",\"modules\":[]}\n", finish(self));
}

TEST_F(dump, table_exact)
{
	ASSERT_EQ(0, dump_print_table(self->f, self->mods, self->nr_mods));
	EXPECT_STREQ(
		"MODULE                 SECTION     ADDRESS             FLAGS\n"
		"dummy  live  taint 0x3000  build-id 3f2a9c0100ff102030405060708090a0b0c0d0e1\n"
		"dummy                  .text       0xffffffffc0564000\n"
		"dummy                  .data       0xffffffffc0566000\n"
		"dummy                  .init.text  0xffffffffc0568000  init,freed\n"
		"snd_hda_codec_generic  coming\n"
		"snd_hda_codec_generic  .init.text  0xffffffffc0a01000  init\n"
		"empty  -\n"
		"empty                  -           -\n", finish(self));
}

TEST_F(dump, table_header_sets_min_width)
{
	ASSERT_EQ(0, dump_print_table(self->f, self->mods, 1));
	EXPECT_STREQ(
		"MODULE  SECTION     ADDRESS             FLAGS\n"
		"dummy  live  taint 0x3000  build-id 3f2a9c0100ff102030405060708090a0b0c0d0e1\n"
		"dummy   .text       0xffffffffc0564000\n"
		"dummy   .data       0xffffffffc0566000\n"
		"dummy   .init.text  0xffffffffc0568000  init,freed\n", finish(self));
}

TEST_F(dump, select_by_name_keeps_kernel_order)
{
	char *names[] = { "empty", "snd-hda-codec-generic" };
	const struct secmap_module **mods = NULL;
	const char *missing = NULL;
	size_t n = 0;

	ASSERT_EQ(0, dump_select(self->snap, names, 2, &mods, &n, &missing));
	ASSERT_EQ(2U, n);
	EXPECT_STREQ("snd_hda_codec_generic", secmap_module_name(mods[0]));
	EXPECT_STREQ("empty", secmap_module_name(mods[1]));
	free(mods);
}

TEST_F(dump, select_duplicate_name_once)
{
	char *names[] = { "dummy", "dummy" };
	const struct secmap_module **mods = NULL;
	const char *missing = NULL;
	size_t n = 0;

	ASSERT_EQ(0, dump_select(self->snap, names, 2, &mods, &n, &missing));
	ASSERT_EQ(1U, n);
	EXPECT_STREQ("dummy", secmap_module_name(mods[0]));
	free(mods);
}

TEST_F(dump, select_unknown_module)
{
	char *names[] = { "dummy", "nosuchmod" };
	const struct secmap_module **mods = NULL;
	const char *missing = NULL;
	size_t n = 7;

	EXPECT_EQ(-ENOENT, dump_select(self->snap, names, 2, &mods, &n, &missing));
	EXPECT_STREQ("nosuchmod", missing);
	EXPECT_EQ(NULL, mods);
	EXPECT_EQ(0U, n);
}

TEST_F(dump, write_error_reported)
{
	FILE *full = fopen("/dev/full", "w");

	ASSERT_NE(NULL, full);
	EXPECT_EQ(-ENOSPC, dump_print_table(full, self->mods, self->nr_mods));
	fclose(full);
	full = fopen("/dev/full", "w");
	ASSERT_NE(NULL, full);
	EXPECT_EQ(-ENOSPC, dump_print_json(full, self->mods, self->nr_mods));
	fclose(full);
}

TEST(exit_codes)
{
	EXPECT_EQ(SECMAP_EXIT_OK, exit_code_from_err(0));
	EXPECT_EQ(SECMAP_EXIT_NO_KMOD, exit_code_from_err(-ENOENT));
	EXPECT_EQ(SECMAP_EXIT_PERM, exit_code_from_err(-EPERM));
	EXPECT_EQ(SECMAP_EXIT_PERM, exit_code_from_err(-EACCES));
	EXPECT_EQ(SECMAP_EXIT_FAILURE, exit_code_from_err(-EPROTO));
	EXPECT_EQ(3, SECMAP_EXIT_NO_KMOD);
	EXPECT_EQ(5, SECMAP_EXIT_NOT_FOUND);
}

TEST_HARNESS_MAIN
