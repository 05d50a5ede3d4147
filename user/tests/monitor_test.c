// SPDX-License-Identifier: GPL-2.0
/* Unit tests for "secmap info" and "secmap monitor" output, on crafted messages. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "kselftest_harness.h"

#include "internal.h"
#include "msg.h"
#include "secmap_cli.h"

#define BUF_SIZE 8192

static const uint8_t build_id[4] = { 0xde, 0xad, 0xbe, 0xef };

FIXTURE(out) {
	struct libsecmap_event_state st;
	char *buf;
	char *out;
	size_t out_len;
	FILE *f;
};

FIXTURE_SETUP(out)
{
	memset(&self->st, 0, sizeof(self->st));
	self->buf = calloc(1, BUF_SIZE);
	ASSERT_NE(NULL, self->buf);
	json_output = false;
	pretty_output = false;
	self->f = open_memstream(&self->out, &self->out_len);
	ASSERT_NE(NULL, self->f);
}

FIXTURE_TEARDOWN(out)
{
	if (self->f)
		fclose(self->f);
	free(self->out);
	free(self->buf);
}

static const char *finish_stream(FILE **f, char **out)
{
	fclose(*f);
	*f = NULL;
	return *out;
}

#define finish(self) finish_stream(&(self)->f, &(self)->out)

/* Parse @nlh as the library does for a listener, through self->st. */
static struct secmap_event *event_from(struct __test_metadata *_metadata,
				       struct libsecmap_event_state *st, struct nlmsghdr *nlh)
{
	struct secmap_event *ev = NULL;

	EXPECT_EQ(0, libsecmap_parse_event_msg(nlh, st, &ev));
	EXPECT_NE(NULL, ev);
	return ev;
}

static struct nlmsghdr *msg_new(void *buf, uint64_t seq)
{
	struct nlmsghdr *nlh = msg_start(buf, SECMAP_CMD_MODULE_NEW_NTF);

	nlh->nlmsg_flags = 0;
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "dummy");
	msg_module_info(nlh, SECMAP_MODULE_STATE_COMING, 0, build_id, sizeof(build_id));
	msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0564000ULL, 4096);
	msg_section_full(nlh, ".text", 0xffffffffc0564000ULL, 0, SECMAP_REGION_TEXT);
	msg_section_full(nlh, ".init.text", 0xffffffffc0a01000ULL, SECMAP_SECTION_F_INIT, -1);
	msg_event(nlh, seq, 5000000123ULL, 4000000456ULL);
	return nlh;
}

/* What the library hands out after a loss: the modules as they are now. */
static struct secmap_event *resync_from(struct __test_metadata *_metadata, void *buf,
					uint64_t seq, uint64_t lost)
{
	struct secmap_event *ev = calloc(1, sizeof(*ev));
	struct nlmsghdr *nlh;

	EXPECT_NE(NULL, ev);
	ev->type = SECMAP_EVENT_RESYNC;
	ev->seq = seq;
	ev->lost = lost;
	ev->snapshot = libsecmap_snapshot_new();
	EXPECT_NE(NULL, ev->snapshot);
	nlh = msg_module(buf, "dummy");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, NULL, 0);
	EXPECT_EQ(0, libsecmap_parse_module_msg(nlh, ev->snapshot));
	nlh = msg_module(buf, "veth");
	msg_module_info(nlh, SECMAP_MODULE_STATE_COMING, 0, NULL, 0);
	EXPECT_EQ(0, libsecmap_parse_module_msg(nlh, ev->snapshot));
	return ev;
}

TEST_F(out, info_text)
{
	SECMAP_OPTS(secmap_info, info, .version = 1, .hook = SECMAP_HOOK_TRACEPOINT,
				    .generation = 42, .release = "6.1.0-18-amd64",
				    .event_seq = 40);

	ASSERT_EQ(0, info_print(self->f, &info));
	EXPECT_STREQ("version     1\n"
		     "generation  42\n"
		     "release     6.1.0-18-amd64\n"
		     "hook        tracepoint\n"
		     "event seq   40\n", finish(self));
}

TEST_F(out, info_json)
{
	SECMAP_OPTS(secmap_info, info);
	struct nlmsghdr *nlh;

	nlh = msg_info(self->buf, 1, 18446744073709551615ULL, "6.8.0", SECMAP_HOOK_NOTIFIER, 7);
	ASSERT_EQ(0, libsecmap_parse_info_msg(nlh, &info));
	json_output = true;
	ASSERT_EQ(0, info_print(self->f, &info));
	EXPECT_STREQ("{\"version\":1,\"generation\":18446744073709551615,"
		     "\"release\":\"6.8.0\",\"hook\":\"notifier\",\"event_seq\":7}\n", finish(self));
}

TEST_F(out, info_unknown_hook)
{
	SECMAP_OPTS(secmap_info, info, .version = 2, .hook = 9, .generation = 0, .release = "x");

	ASSERT_EQ(0, info_print(self->f, &info));
	json_output = true;
	ASSERT_EQ(0, info_print(self->f, &info));
	EXPECT_STREQ("version     2\n"
		     "generation  0\n"
		     "release     x\n"
		     "hook        unknown (9)\n"
		     "event seq   0\n"
		     "{\"version\":2,\"generation\":0,\"release\":\"x\",\"hook\":null,"
		     "\"event_seq\":0}\n", finish(self));
}

/* --pretty: the same document, laid out over lines. */
TEST_F(out, info_json_pretty)
{
	SECMAP_OPTS(secmap_info, info, .version = 1, .hook = SECMAP_HOOK_TRACEPOINT,
				    .generation = 42, .release = "6.1.0-18-amd64",
				    .event_seq = 40);
	struct json_object *obj;

	json_output = true;
	pretty_output = true;
	ASSERT_EQ(0, info_print(self->f, &info));
	EXPECT_STREQ("{\n"
		     "  \"version\": 1,\n"
		     "  \"generation\": 42,\n"
		     "  \"release\": \"6.1.0-18-amd64\",\n"
		     "  \"hook\": \"tracepoint\",\n"
		     "  \"event_seq\": 40\n"
		     "}\n", finish(self));
	obj = json_tokener_parse(self->out);
	ASSERT_NE(NULL, obj);
	EXPECT_EQ(42U, json_object_get_uint64(json_object_object_get(obj, "generation")));
	EXPECT_STREQ("tracepoint", json_object_get_string(json_object_object_get(obj, "hook")));
	json_object_put(obj);
}

TEST_F(out, event_lines_text)
{
	struct secmap_event *ev;

	ev = event_from(_metadata, &self->st, msg_new(self->buf, 1));
	ASSERT_EQ(0, monitor_print_event(self->f, ev));
	secmap_event_free(ev);
	ev = event_from(_metadata, &self->st,
			msg_ntf(self->buf, SECMAP_CMD_MODULE_LIVE_NTF, "dummy",
				SECMAP_MODULE_STATE_LIVE, 2));
	ASSERT_EQ(0, monitor_print_event(self->f, ev));
	secmap_event_free(ev);
	ev = resync_from(_metadata, self->buf, 9, 7);
	ASSERT_EQ(0, monitor_print_event(self->f, ev));
	secmap_event_free(ev);
	ev = resync_from(_metadata, self->buf, 10, 1);
	ASSERT_EQ(0, monitor_print_event(self->f, ev));
	secmap_event_free(ev);

	EXPECT_STREQ("[5000000123 4000000456] seq 1 new dummy (2 sections)\n"
		     "[2000 4000] seq 2 live dummy\n"
		     "!!! lost 7 events; resynced at seq 9: 2 modules loaded\n"
		     "!!! lost 1 event; resynced at seq 10: 2 modules loaded\n", finish(self));
}

TEST_F(out, event_lines_json)
{
	struct secmap_event *ev;

	json_output = true;
	/* Events stream one per line even when --pretty was given. */
	pretty_output = true;
	ev = event_from(_metadata, &self->st, msg_new(self->buf, 3));
	ASSERT_EQ(0, monitor_print_event(self->f, ev));
	secmap_event_free(ev);
	ev = event_from(_metadata, &self->st,
			msg_ntf(self->buf, SECMAP_CMD_MODULE_LIVE_NTF, "dummy",
				SECMAP_MODULE_STATE_LIVE, 4));
	ASSERT_EQ(0, monitor_print_event(self->f, ev));
	secmap_event_free(ev);
	ev = resync_from(_metadata, self->buf, 8, 4);
	ASSERT_EQ(0, monitor_print_event(self->f, ev));
	secmap_event_free(ev);

	EXPECT_STREQ("{\"event\":\"new\",\"seq\":3,\"time_local_ns\":5000000123,"
		     "\"time_mono_ns\":4000000456,\"module\":{\"name\":\"dummy\","
		     "\"state\":\"coming\",\"taint\":0,\"build_id\":\"deadbeef\",\"regions\":["
		     "{\"type\":\"text\",\"base\":\"0xffffffffc0564000\",\"size\":4096}],"
		     "\"sections\":["
		     "{\"name\":\".text\",\"addr\":\"0xffffffffc0564000\",\"size\":null,"
		     "\"pgoff\":null,\"init\":false,\"freed\":false,\"region\":\"text\"},"
		     "{\"name\":\".init.text\",\"addr\":\"0xffffffffc0a01000\",\"size\":null,"
		     "\"pgoff\":null,\"init\":true,\"freed\":false,\"region\":null}]}}\n"
		     "{\"event\":\"live\",\"seq\":4,\"time_local_ns\":4000,\"time_mono_ns\":8000,"
		     "\"module\":{\"name\":\"dummy\",\"state\":\"live\"}}\n"
		     "{\"event\":\"resync\",\"reason\":\"lost\",\"seq\":8,\"lost\":4,\"modules\":["
		     "{\"name\":\"dummy\",\"state\":\"live\"},"
		     "{\"name\":\"veth\",\"state\":\"coming\"}]}\n", finish(self));
}

/* Every JSON line stands alone. */
TEST_F(out, event_json_lines_parse)
{
	struct secmap_event *ev;
	char *line, *save = NULL;
	int n = 0;

	json_output = true;
	ev = event_from(_metadata, &self->st, msg_new(self->buf, 1));
	ASSERT_EQ(0, monitor_print_event(self->f, ev));
	secmap_event_free(ev);
	ev = resync_from(_metadata, self->buf, 9, 7);
	ASSERT_EQ(0, monitor_print_event(self->f, ev));
	secmap_event_free(ev);
	finish(self);
	for (line = strtok_r(self->out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct json_object *obj = json_tokener_parse(line);

		ASSERT_NE(NULL, obj);
		json_object_put(obj);
		n++;
	}
	/* new, resync */
	EXPECT_EQ(2, n);
}

TEST_F(out, write_error_reported)
{
	FILE *full = fopen("/dev/full", "w");
	struct secmap_event *ev;

	ASSERT_NE(NULL, full);
	ev = event_from(_metadata, &self->st, msg_new(self->buf, 1));
	EXPECT_EQ(-ENOSPC, monitor_print_event(full, ev));
	json_output = true;
	EXPECT_EQ(-ENOSPC, monitor_print_event(full, ev));
	secmap_event_free(ev);
	ev = resync_from(_metadata, self->buf, 9, 2);
	EXPECT_EQ(-ENOSPC, monitor_print_event(full, ev));
	json_output = false;
	EXPECT_EQ(-ENOSPC, monitor_print_event(full, ev));
	secmap_event_free(ev);
	fclose(full);
}

TEST_HARNESS_MAIN
