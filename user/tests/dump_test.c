// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for "secmap dump" output: module selection, the table, and the
 * JSON writer behind every JSON the tool prints, read back by json-c.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "kselftest_harness.h"

#include "dump.h"
#include "dump_ko.h"
#include "internal.h"
#include "json_out.h"
#include "json_read.h"
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

/*
 * Compact output: no blank between tokens, no control character in a
 * string, and one newline, at the end.
 */
static bool is_compact(const char *text)
{
	size_t len = strlen(text), i;
	bool in_string = false;

	if (!len || text[len - 1] != '\n')
		return false;
	for (i = 0; i + 1 < len; i++) {
		unsigned char c = text[i];

		if (c < 0x20)
			return false;
		if (in_string && c == '\\')
			i++;
		else if (c == '"')
			in_string = !in_string;
		else if (!in_string && c == ' ')
			return false;
	}
	return !in_string;
}

/* json-c's value for @key of @obj, whether or not it is null. */
static struct json_object *member(struct json_object *obj, const char *key, bool *present)
{
	struct json_object *v = NULL;

	*present = json_object_object_get_ex(obj, key, &v);
	return v;
}

TEST_F(dump, json_exact)
{
	ASSERT_EQ(0, dump_print_json(self->f, "netlink", self->mods, self->nr_mods, NULL));
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
	EXPECT_EQ(0, dump_print_json(self->f, "sysfs", &mod, 1, NULL));
	secmap_snapshot_free(snap);
	EXPECT_STREQ("{\"source\":\"sysfs\",\"modules\":[{\"name\":\"lo\",\"state\":null,"
		     "\"taint\":0,\"build_id\":null,\"regions\":[],\"sections\":"
		     "[{\"name\":\".bss\",\"addr\":\"0x1000\",\"size\":null,\"pgoff\":null,"
		     "\"init\":false,\"freed\":false,\"region\":null}]}]}\n", finish(self));
}

TEST_F(dump, json_pretty_same_document)
{
	struct json_object *plain, *pretty;
	char *out;

	out = dump_json_text(self->mods, self->nr_mods, NULL, false);
	ASSERT_NE(NULL, out);
	EXPECT_TRUE(is_compact(out)) TH_LOG("%s", out);
	plain = parse_strict(out);
	free(out);
	ASSERT_NE(NULL, plain);
	out = dump_json_text(self->mods, self->nr_mods, NULL, true);
	ASSERT_NE(NULL, out);
	/* Indented over several lines, empty containers on the line of their key... */
	EXPECT_EQ(0, strncmp(out, "{\n  \"source\": \"netlink\",\n  \"modules\": [\n    {\n"
			     "      \"name\": \"dummy\",\n      \"state\": \"live\",\n", 88))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\n      \"regions\": [\n        {\n"
				    "          \"type\": \"text\",\n"));
	EXPECT_NE(NULL, strstr(out, "\n      \"regions\": [],\n      \"sections\": []\n    }\n"
				    "  ]\n}\n"));
	/* ...yet the same document. */
	pretty = parse_strict(out);
	ASSERT_NE(NULL, pretty) TH_LOG("%s", out);
	EXPECT_TRUE(json_object_equal(plain, pretty));
	json_object_put(pretty);
	json_object_put(plain);
	free(out);
}

/* The pretty layout, byte for byte: two spaces a level, "key": value, {} and []. */
TEST(json_pretty_layout)
{
	struct json_out *o;
	struct json_doc d;

	o = json_doc_open(&d, true);
	json_out_object_begin(o, NULL);
	json_out_u64(o, "a", 1);
	json_out_array_begin(o, "b");
	json_out_array_end(o);
	json_out_object_begin(o, "c");
	json_out_object_end(o);
	json_out_array_begin(o, "d");
	json_out_hex(o, NULL, 0x10);
	json_out_object_begin(o, NULL);
	json_out_null(o, "e");
	json_out_str(o, "f", "g\n");
	json_out_object_end(o);
	json_out_bool(o, NULL, false);
	json_out_array_end(o);
	json_out_object_end(o);
	ASSERT_EQ(0, json_doc_close(&d, o));
	EXPECT_STREQ("{\n"
		     "  \"a\": 1,\n"
		     "  \"b\": [],\n"
		     "  \"c\": {},\n"
		     "  \"d\": [\n"
		     "    \"0x10\",\n"
		     "    {\n"
		     "      \"e\": null,\n"
		     "      \"f\": \"g\\n\"\n"
		     "    },\n"
		     "    false\n"
		     "  ]\n"
		     "}\n", d.text);
	free(d.text);

	/* A lone value, and empty containers at the top. */
	o = json_doc_open(&d, true);
	json_out_u64(o, NULL, 7);
	ASSERT_EQ(0, json_doc_close(&d, o));
	EXPECT_STREQ("7\n", d.text);
	free(d.text);
	o = json_doc_open(&d, true);
	json_out_array_begin(o, NULL);
	json_out_array_end(o);
	ASSERT_EQ(0, json_doc_close(&d, o));
	EXPECT_STREQ("[]\n", d.text);
	free(d.text);
}

/* The odd names of json_large_dump and what a JSON reader must get back for each. */
static const char *const odd_names[][2] = {
	{ "quote\"", "quote\"" }, { "back\\slash", "back\\slash" }, { "slash/ok", "slash/ok" },
	{ "tab\there", "tab\there" }, { "nl\ncr\r", "nl\ncr\r" },
	{ "\x01\x1f\x7f", "\x01\x1f\x7f" }, { "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac" },
	{ "\xff\xfe bytes", "\xef\xbf\xbd\xef\xbf\xbd bytes" }, { "<script>", "<script>" },
	{ "\b\f", "\b\f" },
};
#define NR_ODD (sizeof(odd_names) / sizeof(odd_names[0]))
#define LARGE_MODS 4
#define LARGE_SECS 600

/* The name section @j of module @i has in json_large_dump, as sent and as read back. */
static const char *large_sec_name(const char *big, size_t i, size_t j, bool decoded, char *buf)
{
	if (j < NR_ODD)
		return odd_names[j][decoded];
	if (j == NR_ODD && i == 1)
		return big + 40000;
	sprintf(buf, ".text.%zu", j);
	return buf;
}

/* Module @i of json_large_dump, parsed, against what was sent; @kos NULL without the .ko fields. */
static void check_large_module(struct __test_metadata *_metadata, struct json_object *mod,
			       size_t i, const char *big, const struct dump_ko *kos)
{
	struct json_object *secs, *sec, *regs, *v;
	char name[64], hex[24];
	bool present;
	size_t j;

	snprintf(name, sizeof(name), "mod_%zu", i);
	EXPECT_STREQ(name, json_object_get_string(member(mod, "name", &present)));
	v = member(mod, "path", &present);
	EXPECT_EQ(!!kos, present);
	if (kos && kos[i].path) {
		EXPECT_STREQ(kos[i].path, json_object_get_string(v));
	} else {
		EXPECT_EQ(NULL, v);
	}
	regs = member(mod, "regions", &present);
	ASSERT_EQ(2U, json_object_array_length(regs));
	/* A region type secmap does not know: null. */
	EXPECT_EQ(NULL, member(json_object_array_get_idx(regs, 1), "type", &present));
	EXPECT_TRUE(present);
	EXPECT_EQ(UINT64_MAX, json_object_get_uint64(member(json_object_array_get_idx(regs, 1),
							    "size", &present)));
	secs = member(mod, "sections", &present);
	ASSERT_EQ((size_t)LARGE_SECS, json_object_array_length(secs));
	for (j = 0; j < LARGE_SECS; j++) {
		const struct dump_ko_sec *ks = kos ? dump_ko_section(&kos[i], j) : NULL;

		sec = json_object_array_get_idx(secs, j);
		ASSERT_STREQ(large_sec_name(big, i, j, true, name),
			     json_object_get_string(member(sec, "name", &present)))
			TH_LOG("module %zu section %zu", i, j);
		snprintf(hex, sizeof(hex), "0x%" PRIx64, j == NR_ODD + 1 ? 0 : UINT64_MAX - j);
		ASSERT_STREQ(hex, json_object_get_string(member(sec, "addr", &present)));
		v = member(sec, "pgoff", &present);
		ASSERT_TRUE(present);
		if (ks) {
			ASSERT_EQ(ks->s.offset, json_object_get_uint64(v));
			ASSERT_EQ(ks->s.size, json_object_get_uint64(member(sec, "size", &present)));
			ASSERT_EQ(!!(ks->s.flags & SHF_EXECINSTR),
				  json_object_get_boolean(member(sec, "exec", &present)));
			ASSERT_EQ(ks->s.nr_symbols,
				  json_object_get_uint64(member(sec, "symbols", &present)));
		} else {
			ASSERT_EQ(NULL, v);
			ASSERT_EQ(NULL, member(sec, "exec", &present));
			ASSERT_EQ(!!kos, present);
		}
		ASSERT_EQ(!!(j % 4 & SECMAP_SECTION_F_INIT),
			  json_object_get_boolean(member(sec, "init", &present)));
		ASSERT_EQ(!!(j % 4 & SECMAP_SECTION_F_FREED),
			  json_object_get_boolean(member(sec, "freed", &present)));
	}
}

/*
 * A whole dump read back by json-c: names with every kind of character,
 * .ko fields known and not, paths to escape, and more than the writer's
 * buffer holds (a name and a path longer than it, too); compact and
 * pretty alike.
 */
TEST(json_large_dump)
{
	size_t size = 1 << 20, i, j, k, nr;
	char *buf = calloc(1, size), *big = malloc(100000), name[64], *text;
	struct secmap_snapshot *snap = libsecmap_snapshot_new();
	const struct secmap_module **mods = NULL;
	struct json_object *root, *compact = NULL;
	const char *missing = NULL;
	struct dump_ko *kos;
	struct nlmsghdr *nlh;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, big);
	ASSERT_NE(NULL, snap);
	/* Longer than the writer's buffer; the name, as long as netlink allows. */
	memset(big, 'b', 99999);
	big[99999] = '\0';
	for (i = 0; i < LARGE_MODS; i++) {
		snprintf(name, sizeof(name), "mod_%zu", i);
		nlh = msg_module(buf, name);
		msg_module_info(nlh, i % 3, i * 0x1001, i % 2 ? build_id : NULL,
				i % 2 ? sizeof(build_id) : 0);
		msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0000000ULL + i, i);
		msg_region(nlh, 99, 0, UINT64_MAX);
		for (j = 0; j < LARGE_SECS; j++)
			msg_section_full(nlh, large_sec_name(big, i, j, false, name),
					 j == NR_ODD + 1 ? 0 : UINT64_MAX - j, (uint32_t)j % 4,
					 (int)(j % 10) - 1);
		ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, snap));
	}
	ASSERT_EQ(0, dump_select(snap, NULL, 0, &mods, &nr, &missing));
	ASSERT_EQ((size_t)LARGE_MODS, nr);
	kos = calloc(nr, sizeof(*kos));
	ASSERT_NE(NULL, kos);
	/*
	 * Module 0: no .ko; 1: a path to escape; 2, 3: every other section
	 * known; 3: a path longer than the writer's buffer.
	 */
	for (i = 1; i < nr; i++) {
		ASSERT_LE(0, asprintf(&kos[i].path, i == 1 ? "/tmp/a \"b\"\\c\n.ko" :
				      "/lib/modules/r/m%zu%s.ko.xz", i, i == 3 ? big : ""));
		if (i < 2)
			continue;
		kos[i].secs = calloc(LARGE_SECS, sizeof(*kos[i].secs));
		ASSERT_NE(NULL, kos[i].secs);
		for (j = 0; j < LARGE_SECS; j += 2) {
			kos[i].secs[j].found = true;
			kos[i].secs[j].s.size = j * 1000;
			kos[i].secs[j].s.offset = UINT64_MAX - j;
			kos[i].secs[j].s.flags = j % 4 ? SHF_EXECINSTR : SHF_WRITE;
			kos[i].secs[j].s.nr_symbols = j;
		}
	}

	/* Without and with the .ko fields; compact, then pretty. */
	for (k = 0; k < 4; k++) {
		const struct dump_ko *with = k & 1 ? kos : NULL;
		bool pretty = k & 2;

		text = dump_json_text(mods, nr, with, pretty);
		ASSERT_NE(NULL, text);
		EXPECT_GT(strlen(text), (size_t)(1 << 17));
		EXPECT_EQ(!pretty, is_compact(text));
		/* Escaped as JSON wants it, and '/' left alone. */
		EXPECT_NE(NULL, strstr(text, "\"quote\\\"\""));
		EXPECT_NE(NULL, strstr(text, "\"back\\\\slash\""));
		EXPECT_NE(NULL, strstr(text, "\"slash/ok\""));
		EXPECT_NE(NULL, strstr(text, "\"tab\\there\""));
		EXPECT_NE(NULL, strstr(text, "\"nl\\ncr\\r\""));
		EXPECT_NE(NULL, strstr(text, "\"\\u0001\\u001f\x7f\""));
		EXPECT_NE(NULL, strstr(text, "\"\\b\\f\""));
		if (with) {
			EXPECT_NE(NULL, strstr(text, "\"/tmp/a \\\"b\\\"\\\\c\\n.ko\""));
		}
		root = parse_strict(text);
		free(text);
		ASSERT_NE(NULL, root);
		EXPECT_STREQ("netlink", json_object_get_string(json_object_object_get(root,
											   "source")));
		for (i = 0; i < nr; i++)
			check_large_module(_metadata, json_object_array_get_idx(
				json_object_object_get(root, "modules"), i), i, big, with);
		/* Pretty is the same document as compact. */
		if (k == 1)
			compact = json_object_get(root);
		if (k == 3) {
			EXPECT_TRUE(json_object_equal(compact, root));
		}
		json_object_put(root);
	}
	json_object_put(compact);
	dump_ko_free(kos, nr);
	free(mods);
	secmap_snapshot_free(snap);
	free(big);
	free(buf);
}

/* The escapes RFC 8259 names; other bytes below 0x20 are \u00XX. */
static const char *const named_escapes[0x80] = {
	['"'] = "\\\"", ['\\'] = "\\\\", ['\b'] = "\\b", ['\f'] = "\\f",
	['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
};

/* How byte @c must appear inside a JSON string: its escape, U+FFFD, or itself. */
static const char *expected_escape(unsigned int c, char *buf)
{
	if (c < 0x80 && named_escapes[c])
		return named_escapes[c];
	if (c >= 0x80)
		return "\xef\xbf\xbd";	/* a lone byte past ASCII is not UTF-8 */
	if (c < 0x20)
		sprintf(buf, "\\u%04x", c);
	else
		sprintf(buf, "%c", c);
	return buf;
}

/*
 * Every byte value, in a key and in a value: written escaped as RFC 8259
 * has it (nothing more: '/' and DEL stay), and read back by json-c as the
 * byte itself, or as U+FFFD where it alone is not UTF-8.
 */
TEST(json_string_every_byte)
{
	char text[8], want[64], buf[8], decoded[8];
	struct json_object *root;
	struct json_out *o;
	unsigned int c;
	struct json_doc d;

	for (c = 1; c < 256; c++) {
		const char *esc = expected_escape(c, buf);

		snprintf(text, sizeof(text), "a%cz", c);
		strcpy(decoded, c < 0x80 ? text : "a\xef\xbf\xbdz");
		o = json_doc_open(&d, false);
		json_out_object_begin(o, NULL);
		json_out_str(o, text, text);
		json_out_object_end(o);
		ASSERT_EQ(0, json_doc_close(&d, o));
		snprintf(want, sizeof(want), "{\"a%sz\":\"a%sz\"}\n", esc, esc);
		EXPECT_STREQ(want, d.text) TH_LOG("byte 0x%02x", c);
		root = parse_strict(d.text);
		ASSERT_NE(NULL, root) TH_LOG("byte 0x%02x: %s", c, d.text);
		EXPECT_STREQ(decoded, json_object_get_string(json_object_object_get(root, decoded)))
			TH_LOG("byte 0x%02x", c);
		json_object_put(root);
		free(d.text);
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
 * Sequences past ASCII: valid UTF-8 kept as it is, each byte of an
 * invalid one (overlong, surrogate, beyond U+10FFFF, cut, stray) as U+FFFD.
 */
TEST(json_string_utf8)
{
#define R "\xef\xbf\xbd"
	static const char *const cases[][2] = {
		{ "\xc3\xa9", "\xc3\xa9" }, { "\xe2\x82\xac", "\xe2\x82\xac" },
		{ "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80" }, { "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf" },
		{ "\xc0\x80", R R }, { "\xed\xa0\x80", R R R }, { "\xf4\x90\x80\x80", R R R R },
		{ "x\xe2\x82", "x" R R }, { "\x80z", R "z" }, { "\xf8\x88\x80\x80\x80", R R R R R },
		{ "ok\xe2\x82\xac\xff", "ok\xe2\x82\xac" R },
	};
#undef R
	struct json_object *root;
	struct json_out *o;
	struct json_doc d;
	size_t i;

	o = json_doc_open(&d, false);
	json_out_array_begin(o, NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		json_out_str(o, NULL, cases[i][0]);
	json_out_array_end(o);
	ASSERT_EQ(0, json_doc_close(&d, o));
	EXPECT_EQ(0, python_parses(d.text)) TH_LOG("%s", d.text);
	root = parse_strict(d.text);
	ASSERT_NE(NULL, root);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		EXPECT_STREQ(cases[i][1], json_object_get_string(json_object_array_get_idx(root, i)))
			TH_LOG("case %zu", i);
	}
	json_object_put(root);
	free(d.text);
}

/*
 * Names are any bytes but NUL: an ANSI escape, invalid UTF-8, a C1
 * control. JSON (compact and --pretty) still parses as UTF-8; the table
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

	out = dump_json_text(mods, nr, NULL, false);
	ASSERT_NE(NULL, out);
	EXPECT_EQ(0, python_parses(out)) TH_LOG("%s", out);
	/* The valid 4-byte character is kept as it is; the rest replaced. */
	EXPECT_NE(NULL, strstr(out, "ok_\xf0\x9f\x98\x80"));
	EXPECT_NE(NULL, strstr(out, "latin1\xef\xbf\xbd\xef\xbf\xbd"));
	EXPECT_NE(NULL, strstr(out, "red\\u001b[31mmod"));
	free(out);

	out = dump_json_text(mods, nr, NULL, true);
	ASSERT_NE(NULL, out);
	EXPECT_EQ(0, python_parses(out)) TH_LOG("%s", out);
	free(out);

	out = NULL;
	f = open_memstream(&out, &len);
	ASSERT_NE(NULL, f);
	ASSERT_EQ(0, dump_print_table(f, mods, nr, NULL));
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

/* Numbers come back exactly, past 2^53 (a double's) and 2^63 (int64's); hex strings too. */
TEST(json_values)
{
	static const uint64_t vals[] = {
		0, 1, 9, 10, 15, 16, 255, 4096, 0xffffffffULL, 0x100000000ULL,
		(1ULL << 53) + 1, 0x7fffffffffffffffULL, 0x8000000000000000ULL, UINT64_MAX - 1,
		UINT64_MAX,
	};
	const size_t nr = sizeof(vals) / sizeof(vals[0]);
	struct json_object *root, *u64, *hex, *obj, *v;
	char want[24];
	struct json_out *o;
	struct json_doc d;
	size_t i;

	o = json_doc_open(&d, false);
	json_out_object_begin(o, NULL);
	json_out_array_begin(o, "u64");
	for (i = 0; i < nr; i++)
		json_out_u64(o, NULL, vals[i]);
	json_out_array_end(o);
	json_out_array_begin(o, "hex");
	for (i = 0; i < nr; i++)
		json_out_hex(o, NULL, vals[i]);
	json_out_array_end(o);
	json_out_array_begin(o, "empty");
	json_out_array_end(o);
	json_out_object_begin(o, "obj");
	json_out_bool(o, "t", true);
	json_out_bool(o, "f", false);
	json_out_null(o, "n");
	json_out_str(o, "s", NULL);
	json_out_str(o, "e", "");
	json_out_object_end(o);
	json_out_object_end(o);
	ASSERT_EQ(0, json_doc_close(&d, o));
	/* Decimal and lowercase hex, without leading zeros. */
	EXPECT_NE(NULL, strstr(d.text, "[\"0x0\",\"0x1\",\"0x9\",\"0xa\",\"0xf\",\"0x10\","));
	EXPECT_NE(NULL, strstr(d.text, ",\"0xffffffffffffffff\"]"));
	EXPECT_NE(NULL, strstr(d.text, "{\"u64\":[0,1,9,10,15,16,255,"));
	EXPECT_NE(NULL, strstr(d.text, ",9007199254740993,"));
	EXPECT_NE(NULL, strstr(d.text, ",18446744073709551615]"));
	EXPECT_NE(NULL, strstr(d.text, "\"empty\":[],\"obj\":{\"t\":true,\"f\":false,"
				       "\"n\":null,\"s\":null,\"e\":\"\"}}\n"));

	root = parse_strict(d.text);
	ASSERT_NE(NULL, root) TH_LOG("%s", d.text);
	u64 = json_object_object_get(root, "u64");
	hex = json_object_object_get(root, "hex");
	ASSERT_EQ(nr, json_object_array_length(u64));
	ASSERT_EQ(nr, json_object_array_length(hex));
	for (i = 0; i < nr; i++) {
		v = json_object_array_get_idx(u64, i);
		EXPECT_TRUE(json_object_is_type(v, json_type_int));
		EXPECT_EQ(vals[i], json_object_get_uint64(v)) TH_LOG("value %zu", i);
		snprintf(want, sizeof(want), "0x%" PRIx64, vals[i]);
		EXPECT_STREQ(want, json_object_get_string(json_object_array_get_idx(hex, i)));
	}
	EXPECT_TRUE(json_object_is_type(json_object_object_get(root, "empty"), json_type_array));
	EXPECT_EQ(0U, json_object_array_length(json_object_object_get(root, "empty")));
	obj = json_object_object_get(root, "obj");
	EXPECT_TRUE(json_object_is_type(json_object_object_get(obj, "t"), json_type_boolean));
	EXPECT_TRUE(json_object_get_boolean(json_object_object_get(obj, "t")));
	EXPECT_TRUE(json_object_is_type(json_object_object_get(obj, "f"), json_type_boolean));
	EXPECT_FALSE(json_object_get_boolean(json_object_object_get(obj, "f")));
	EXPECT_TRUE(json_object_object_get_ex(obj, "n", &v));
	EXPECT_EQ(NULL, v);
	EXPECT_TRUE(json_object_object_get_ex(obj, "s", &v));
	EXPECT_EQ(NULL, v);
	EXPECT_STREQ("", json_object_get_string(json_object_object_get(obj, "e")));
	json_object_put(root);
	free(d.text);
}

/* Nesting as deep as the writer allows reads back level by level; one more is refused. */
TEST(json_nesting)
{
	struct json_object *root, *v;
	struct json_out *o;
	struct json_doc d;
	int pretty, i, depth;

	for (pretty = 0; pretty < 2; pretty++) {
		/* Objects and arrays in turn: {"k": [{"k": [... 7]}]} */
		o = json_doc_open(&d, pretty);
		for (i = 0; i < 16; i++) {
			if (i % 2 == 0)
				json_out_object_begin(o, NULL);
			else
				json_out_array_begin(o, "k");
		}
		json_out_u64(o, NULL, 7);
		for (i = 15; i >= 0; i--) {
			if (i % 2 == 0)
				json_out_object_end(o);
			else
				json_out_array_end(o);
		}
		ASSERT_EQ(0, json_doc_close(&d, o));
		root = parse_strict(d.text);
		ASSERT_NE(NULL, root) TH_LOG("%s", d.text);
		for (v = root, depth = 0; json_object_is_type(v, json_type_object); depth += 2)
			v = json_object_array_get_idx(json_object_object_get(v, "k"), 0);
		EXPECT_EQ(16, depth);
		EXPECT_EQ(7U, json_object_get_uint64(v));
		json_object_put(root);
		free(d.text);

		o = json_doc_open(&d, pretty);
		for (i = 0; i < 17; i++)
			json_out_array_begin(o, NULL);
		for (i = 0; i < 17; i++)
			json_out_array_end(o);
		EXPECT_EQ(-EINVAL, json_doc_close(&d, o));
		free(d.text);
	}
}

/* Calls that do not describe one well-formed value fail, and say so at the end. */
TEST(json_out_misuse)
{
	struct json_out *o;
	struct json_doc d;

	/* A key inside an array; none inside an object; one at the top. */
	o = json_doc_open(&d, false);
	json_out_array_begin(o, NULL);
	json_out_u64(o, "k", 1);
	json_out_array_end(o);
	EXPECT_EQ(-EINVAL, json_doc_close(&d, o));
	EXPECT_STREQ("", d.text);
	free(d.text);
	o = json_doc_open(&d, false);
	json_out_object_begin(o, NULL);
	json_out_str(o, NULL, "v");
	json_out_object_end(o);
	EXPECT_EQ(-EINVAL, json_doc_close(&d, o));
	free(d.text);
	o = json_doc_open(&d, false);
	json_out_u64(o, "k", 1);
	EXPECT_EQ(-EINVAL, json_doc_close(&d, o));
	free(d.text);
	/* Unbalanced: an object closed as an array, an end with nothing open, unfinished. */
	o = json_doc_open(&d, false);
	json_out_object_begin(o, NULL);
	json_out_array_end(o);
	EXPECT_EQ(-EINVAL, json_doc_close(&d, o));
	free(d.text);
	o = json_doc_open(&d, false);
	json_out_object_end(o);
	EXPECT_EQ(-EINVAL, json_doc_close(&d, o));
	free(d.text);
	o = json_doc_open(&d, true);
	json_out_object_begin(o, NULL);
	json_out_array_begin(o, "a");
	EXPECT_EQ(-EINVAL, json_doc_close(&d, o));
	free(d.text);
	/* Two top-level values; nothing at all. */
	o = json_doc_open(&d, false);
	json_out_null(o, NULL);
	json_out_null(o, NULL);
	EXPECT_EQ(-EINVAL, json_doc_close(&d, o));
	free(d.text);
	o = json_doc_open(&d, false);
	EXPECT_EQ(-EINVAL, json_doc_close(&d, o));
	free(d.text);
	/* A failure met by the caller sticks: later calls and errors change nothing. */
	o = json_doc_open(&d, false);
	json_out_fail(o, -ENOMEM);
	json_out_null(o, NULL);
	json_out_array_end(o);
	json_out_fail(o, -EIO);
	EXPECT_EQ(-ENOMEM, json_doc_close(&d, o));
	/* Nothing reached the stream: no newline for a document that failed. */
	EXPECT_STREQ("", d.text);
	free(d.text);
	/* Out of memory before the first call. */
	EXPECT_EQ(-ENOMEM, json_out_finish(NULL));
}

/* Overwrite @len bytes at @off of the file @path with @bytes. */
static void poke(const char *path, long off, const void *bytes, size_t len)
{
	FILE *f = fopen(path, "r+");

	if (!f || fseek(f, off, SEEK_SET) || fwrite(bytes, 1, len, f) != len)
		abort();
	fclose(f);
}

/*
 * The .ko cache's entries: every value comes back as it was (numbers past
 * INT64_MAX, any name bytes but NUL), and an entry that is cut, of another
 * build-id, another version or another section list is no entry.
 */
TEST(ko_cache_entry_round_trip)
{
	static const char *const secs[] = { ".text", "quote\"back\\slash/\t", ".data", ".bss" };
	struct libsecmap_ko_row ks[4] = {
		{ true, { .size = UINT64_MAX, .offset = 0x40, .flags = SHF_ALLOC | SHF_EXECINSTR,
			  .nr_symbols = 3 } },
		{ true, { .size = 1ULL << 63, .offset = 0, .flags = 0, .nr_symbols = 0 } },
		{ false },
		{ true, { .size = 8, .offset = 0x100, .flags = SHF_WRITE, .nr_symbols = 1 } },
	};
	struct libsecmap_ko_rows ko = { .path = "/lib/modules/r/\"odd\" dir/m.ko", .rows = ks }, got;
	struct libsecmap_ko_cache_listing *listing;
	char dir[] = "/tmp/secmap-dump-test.XXXXXX", *buf = calloc(1, 4096), *entry, cmd[160];
	struct secmap_snapshot *snap = libsecmap_snapshot_new();
	struct nlmsghdr *nlh;
	struct stat st;
	size_t i;

	ASSERT_NE(NULL, buf);
	ASSERT_NE(NULL, snap);
	ASSERT_NE(NULL, mkdtemp(dir));
	nlh = msg_module(buf, "cached");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, build_id, sizeof(build_id));
	for (i = 0; i < 4; i++)
		msg_section_full(nlh, secs[i], 0xffffffffc0000000ULL + i * 0x1000, 0, -1);
	ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, snap));
	nlh = msg_module(buf, "latin1");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, build_id + 1, sizeof(build_id) - 1);
	msg_section_full(nlh, ".text", 0xffffffffc1000000ULL, 0, -1);
	msg_section_full(nlh, ".data.caf\xe9", 0xffffffffc1001000ULL, 0, -1);
	ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, snap));
	/* Another build of "cached": same name, same sections, another build-id. */
	nlh = msg_module(buf, "cached");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, build_id + 2, sizeof(build_id) - 2);
	for (i = 0; i < 4; i++)
		msg_section_full(nlh, secs[i], 0xffffffffc2000000ULL + i * 0x1000, 0, -1);
	ASSERT_EQ(0, libsecmap_parse_module_msg(nlh, snap));

	ASSERT_EQ(0, libsecmap_ko_cache_store(dir, secmap_snapshot_module(snap, 0), &ko));
	ASSERT_EQ(0, libsecmap_ko_cache_load(dir, secmap_snapshot_module(snap, 0), &got));
	EXPECT_STREQ(ko.path, got.path);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(ks[i].found, got.rows[i].found);
		EXPECT_EQ(ks[i].s.size, got.rows[i].s.size) TH_LOG("section %zu", i);
		EXPECT_EQ(ks[i].s.offset, got.rows[i].s.offset);
		EXPECT_EQ(ks[i].s.flags, got.rows[i].s.flags);
		EXPECT_EQ(ks[i].s.nr_symbols, got.rows[i].s.nr_symbols);
	}
	free(got.path);
	free(got.rows);

	/* A count the entry's 32 bits cannot hold: refused, nothing written. */
	ks[0].s.nr_symbols = (size_t)UINT32_MAX + 1;
	EXPECT_EQ(-EOVERFLOW, libsecmap_ko_cache_store(dir, secmap_snapshot_module(snap, 0), &ko));
	ks[0].s.nr_symbols = 3;

	/* Names that are not UTF-8 are kept as they are. */
	ko.rows = ks + 2;
	ASSERT_EQ(0, libsecmap_ko_cache_store(dir, secmap_snapshot_module(snap, 1), &ko));
	ASSERT_EQ(0, libsecmap_ko_cache_load(dir, secmap_snapshot_module(snap, 1), &got));
	EXPECT_FALSE(got.rows[0].found);
	EXPECT_EQ(8, got.rows[1].s.size);
	free(got.path);
	free(got.rows);
	ko.rows = ks;

	/* The entry is the build-id's file, the header's build-id must agree. */
	ASSERT_LE(0, asprintf(&entry, "%s/3f2a9c0100ff102030405060708090a0b0c0d0e1.kotab", dir));
	ASSERT_EQ(0, stat(entry, &st));
	EXPECT_EQ(96 + 4 * 32 + strlen(ko.path) + 6 + 19 + 6 + 5, (size_t)st.st_size);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s/%s.kotab'", entry, dir, "9c0100ff102030405060708090a0b0c0d0e1");
	ASSERT_EQ(0, system(cmd));
	EXPECT_EQ(-ENOENT, libsecmap_ko_cache_load(dir, secmap_snapshot_module(snap, 2), &got));
	/* Another section list (a name changed) or version: a miss. */
	poke(entry, st.st_size - 2, "X", 1);
	EXPECT_EQ(-ENOENT, libsecmap_ko_cache_load(dir, secmap_snapshot_module(snap, 0), &got));
	ASSERT_EQ(0, libsecmap_ko_cache_store(dir, secmap_snapshot_module(snap, 0), &ko));
	poke(entry, 8, "\x01", 1);
	EXPECT_EQ(-ENOENT, libsecmap_ko_cache_load(dir, secmap_snapshot_module(snap, 0), &got));
	/* Cut anywhere: a miss. */
	for (i = 0; i < (size_t)st.st_size; i += 7) {
		ASSERT_EQ(0, libsecmap_ko_cache_store(dir, secmap_snapshot_module(snap, 0), &ko));
		ASSERT_EQ(0, truncate(entry, (off_t)i));
		EXPECT_EQ(-ENOENT, libsecmap_ko_cache_load(dir, secmap_snapshot_module(snap, 0), &got))
			TH_LOG("cut at %zu", i);
	}
	free(entry);

	/*
	 * The listing a dump takes once: the stored modules are in it, one
	 * without an entry is not, a writer's temporary file is no entry; a
	 * directory not made yet lists nothing, and no listing at all means
	 * "ask".
	 */
	snprintf(cmd, sizeof(cmd), "cd '%s' && mv 9c0100ff102030405060708090a0b0c0d0e1.kotab "
		 ".9c0100ff102030405060708090a0b0c0d0e1.kotab", dir);
	ASSERT_EQ(0, system(cmd));
	listing = libsecmap_ko_cache_list(dir);
	ASSERT_NE(NULL, listing);
	EXPECT_TRUE(libsecmap_ko_cache_listed(listing, secmap_snapshot_module(snap, 0)));
	EXPECT_TRUE(libsecmap_ko_cache_listed(listing, secmap_snapshot_module(snap, 1)));
	EXPECT_FALSE(libsecmap_ko_cache_listed(listing, secmap_snapshot_module(snap, 2)));
	libsecmap_ko_cache_listing_free(listing);
	ASSERT_LE(0, asprintf(&entry, "%s/not-made-yet", dir));
	listing = libsecmap_ko_cache_list(entry);
	ASSERT_NE(NULL, listing);
	EXPECT_FALSE(libsecmap_ko_cache_listed(listing, secmap_snapshot_module(snap, 0)));
	libsecmap_ko_cache_listing_free(listing);
	free(entry);
	EXPECT_TRUE(libsecmap_ko_cache_listed(NULL, secmap_snapshot_module(snap, 2)));
	snprintf(cmd, sizeof(cmd), "rm -r '%s'", dir);
	EXPECT_EQ(0, system(cmd));
	secmap_snapshot_free(snap);
	free(buf);
}

TEST_F(dump, json_empty)
{
	EXPECT_EQ(0, dump_print_json(self->f, "netlink", self->mods, 0, NULL));
	EXPECT_STREQ("{\"source\":\"netlink\",\"modules\":[]}\n", finish(self));
}

TEST_F(dump, table_exact)
{
	ASSERT_EQ(0, dump_print_table(self->f, self->mods, self->nr_mods, NULL));
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
	ASSERT_EQ(0, dump_print_table(self->f, self->mods, 1, NULL));
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
	struct json_out *o;
	size_t i;

	ASSERT_NE(NULL, full);
	EXPECT_EQ(-ENOSPC, dump_print_table(full, self->mods, self->nr_mods, NULL));
	fclose(full);
	full = fopen("/dev/full", "w");
	ASSERT_NE(NULL, full);
	EXPECT_EQ(-ENOSPC, dump_print_json(full, "netlink", self->mods, self->nr_mods, NULL));
	fclose(full);
	pretty_output = true;
	full = fopen("/dev/full", "w");
	ASSERT_NE(NULL, full);
	EXPECT_EQ(-ENOSPC, dump_print_json(full, "netlink", self->mods, self->nr_mods, NULL));
	fclose(full);
	pretty_output = false;

	/* Larger than the writer's buffer: the write fails before the end. */
	full = fopen("/dev/full", "w");
	ASSERT_NE(NULL, full);
	o = json_out_stream(full, false);
	json_out_array_begin(o, NULL);
	for (i = 0; i < 100000; i++)
		json_out_u64(o, NULL, i);
	json_out_array_end(o);
	EXPECT_EQ(-ENOSPC, json_out_finish(o));
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
