// SPDX-License-Identifier: GPL-2.0
/* Unit tests for "secmap dump" output: module selection, JSON and table rendering. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "kselftest_harness.h"

#include "internal.h"
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
