// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM tests of how the secmap family treats requests, spoken in raw
 * netlink (libmnl only) so that libsecmap cannot hide a kernel mistake:
 * malformed requests are refused with the right errno and an extack
 * message, a well-formed GET answers, and the "events" group delivers
 * nothing to a socket that did not subscribe.
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "kselftest_harness.h"
#include <linux/secmap.h>

#include "vm_util.h"

#define LATE_KO		TEST_MODULE_DIR "/secmap_test_late.ko"

struct reply {
	int error;		/* 0, or the negative errno of an NLMSG_ERROR */
	char extack[256];	/* NLMSGERR_ATTR_MSG, if any */
	int bad_attr_offset;	/* NLMSGERR_ATTR_OFFS, or -1 */
	int missing_attr;	/* NLMSGERR_ATTR_MISS_TYPE, or -1 */
	int nr_messages;	/* data messages before DONE/ACK */
};

FIXTURE(nl) {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t mcgrp_events;
	unsigned int seq;
	char buf[32768];	/* MNL_SOCKET_BUFFER_SIZE is not a constant */
};

FIXTURE_SETUP(nl)
{
	struct family_ids ids = { 0 };
	struct nlmsghdr *nlh;
	struct genlmsghdr *genl;
	int one = 1, ret;

	self->sock = mnl_socket_open(NETLINK_GENERIC);
	ASSERT_NE(NULL, self->sock);
	ASSERT_EQ(0, mnl_socket_bind(self->sock, 0, MNL_SOCKET_AUTOPID));
	mnl_socket_setsockopt(self->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	self->seq = time(NULL);

	nlh = mnl_nlmsg_put_header(self->buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	/* No ACK: an unread one would be taken for the first test's answer. */
	nlh->nlmsg_flags = NLM_F_REQUEST;
	nlh->nlmsg_seq = ++self->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, SECMAP_GENL_NAME);
	ASSERT_LT(0, mnl_socket_sendto(self->sock, nlh, nlh->nlmsg_len));
	ret = mnl_socket_recvfrom(self->sock, self->buf, sizeof(self->buf));
	ASSERT_LT(0, ret);
	ASSERT_LE(MNL_CB_STOP, mnl_cb_run(self->buf, ret, self->seq, 0, family_ids_cb, &ids));
	self->family = ids.family;
	self->mcgrp_events = ids.mcgrp_events;
	ASSERT_NE(0, self->family) TH_LOG("secmap family not registered");
	ASSERT_NE(0, self->mcgrp_events) TH_LOG("no \"events\" group");
}

FIXTURE_TEARDOWN(nl)
{
	mnl_socket_close(self->sock);
}

static struct nlmsghdr *request(FIXTURE_DATA(nl) *self, uint8_t cmd, uint8_t version,
				uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(self->buf);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = self->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++self->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

static void parse_error(const struct nlmsghdr *nlh, struct reply *r)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *attr;
	size_t off = sizeof(*err);

	r->error = err->error;
	/* Without NLM_F_CAPPED the kernel echoes the request before the TLVs. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	mnl_attr_for_each(attr, nlh, off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG)
			snprintf(r->extack, sizeof(r->extack), "%.*s",
				 (int)mnl_attr_get_payload_len(attr),
				 (const char *)mnl_attr_get_payload(attr));
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_OFFS)
			r->bad_attr_offset = mnl_attr_get_u32(attr);
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MISS_TYPE)
			r->missing_attr = mnl_attr_get_u32(attr);
	}
}

/* Send @nlh and read until the ACK, error or end of dump. */
static struct reply transact(struct __test_metadata *_metadata, FIXTURE_DATA(nl) *self,
			     struct nlmsghdr *nlh)
{
	struct reply r = { .bad_attr_offset = -1, .missing_attr = -1 };
	bool done = false;

	ASSERT_LT(0, mnl_socket_sendto(self->sock, nlh, nlh->nlmsg_len));
	while (!done) {
		int len = mnl_socket_recvfrom(self->sock, self->buf, sizeof(self->buf));
		const struct nlmsghdr *msg;

		ASSERT_LT(0, len);
		for (msg = (void *)self->buf; mnl_nlmsg_ok(msg, len);
		     msg = mnl_nlmsg_next(msg, &len)) {
			if (msg->nlmsg_type == NLMSG_ERROR) {
				parse_error(msg, &r);
				done = true;
			} else if (msg->nlmsg_type == NLMSG_DONE) {
				done = true;
			} else {
				r.nr_messages++;
			}
		}
	}
	return r;
}

TEST_F(nl, get_by_name_answers)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION, 0);
	struct reply r;

	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "secmap");
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(0, r.error) TH_LOG("extack: %s", r.extack);
	EXPECT_EQ(1, r.nr_messages);
}

TEST_F(nl, get_unknown_module_is_enoent)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION, 0);
	struct reply r;

	struct utsname uts;
	int major, minor;

	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "no_such_module_here");
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(-ENOENT, r.error);
	EXPECT_LE(0, r.bad_attr_offset) TH_LOG("extack should point at the name");
	/* Formatted extack messages exist since 6.2. */
	ASSERT_EQ(0, uname(&uts));
	ASSERT_EQ(2, sscanf(uts.release, "%d.%d", &major, &minor));
	if (major > 6 || (major == 6 && minor >= 2)) {
		EXPECT_STREQ("module no_such_module_here is not loaded", r.extack);
	} else {
		EXPECT_STREQ("module is not loaded", r.extack);
	}
}

TEST_F(nl, dump_filters_by_name)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION,
				       NLM_F_DUMP);
	struct reply all, one, none;

	all = transact(_metadata, self, nlh);
	EXPECT_EQ(0, all.error);
	EXPECT_LT(3, all.nr_messages);

	nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION, NLM_F_DUMP);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "secmap");
	one = transact(_metadata, self, nlh);
	EXPECT_EQ(0, one.error);
	EXPECT_EQ(1, one.nr_messages);

	nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION, NLM_F_DUMP);
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "no_such_module_here");
	none = transact(_metadata, self, nlh);
	EXPECT_EQ(0, none.error);
	EXPECT_EQ(0, none.nr_messages);
}

/*
 * A module message's sections, one "module name addr flags region" line
 * each, read from SECMAP_A_MODULE_SECTION nests or from the section table,
 * by libmnl alone. Counts which spelling it met.
 */
struct sections_text {
	char *text;
	size_t len, size;
	int nests, tables;
};

static void add_line(struct sections_text *t, const char *module, const char *name,
		     uint64_t addr, uint32_t flags, long region)
{
	int n;

	if (t->len + 256 > t->size) {
		t->size = t->size ? 2 * t->size : 65536;
		t->text = realloc(t->text, t->size);
		if (!t->text)
			abort();
	}
	n = snprintf(t->text + t->len, 256, "%s %s %#llx %#x %ld\n", module, name,
		     (unsigned long long)addr, flags, region);
	t->len += n;
}

static int sections_cb(const struct nlmsghdr *nlh, void *data)
{
	struct sections_text *t = data;
	const struct nlattr *attr, *sub, *table = NULL, *names = NULL;
	const char *module = "?";

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) == SECMAP_A_MODULE_NAME)
			module = mnl_attr_get_str(attr);
		else if (mnl_attr_get_type(attr) == SECMAP_A_MODULE_SECTION_TABLE)
			table = attr;
		else if (mnl_attr_get_type(attr) == SECMAP_A_MODULE_SECTION_NAMES)
			names = attr;
	}
	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		const char *name = "?";
		uint64_t addr = 0;
		uint32_t flags = 0;
		long region = -1;

		if (mnl_attr_get_type(attr) != SECMAP_A_MODULE_SECTION)
			continue;
		t->nests++;
		mnl_attr_for_each_nested(sub, attr) {
			switch (mnl_attr_get_type(sub)) {
			case SECMAP_A_SECTION_NAME:
				name = mnl_attr_get_str(sub);
				break;
			case SECMAP_A_SECTION_ADDR:
				addr = mnl_attr_get_u64(sub);
				break;
			case SECMAP_A_SECTION_FLAGS:
				flags = mnl_attr_get_u32(sub);
				break;
			case SECMAP_A_SECTION_REGION:
				region = mnl_attr_get_u32(sub);
				break;
			}
		}
		add_line(t, module, name, addr, flags, region);
	}
	if (table) {
		const char *at = mnl_attr_get_payload(table);
		size_t i, n = mnl_attr_get_payload_len(table) / sizeof(struct secmap_section_desc);
		struct secmap_section_desc desc;

		t->tables++;
		if (!names || mnl_attr_get_payload_len(table) % sizeof(desc))
			return MNL_CB_ERROR;
		for (i = 0; i < n; i++) {
			memcpy(&desc, at + i * sizeof(desc), sizeof(desc));
			if (desc.name_off >= mnl_attr_get_payload_len(names) || desc.reserved)
				return MNL_CB_ERROR;
			add_line(t, module, (const char *)mnl_attr_get_payload(names) + desc.name_off,
				 desc.addr, desc.flags,
				 desc.region == SECMAP_SECTION_NO_REGION ? -1 : (long)desc.region);
		}
	}
	return MNL_CB_OK;
}

/* The sections of a dump (or of a GET of @name), asked for as a table or not. */
static struct sections_text get_sections(struct __test_metadata *_metadata,
					 FIXTURE_DATA(nl) *self, const char *name, bool compact)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION,
				       name ? 0 : NLM_F_DUMP);
	struct sections_text t = { 0 };
	int len, ret = MNL_CB_OK;
	unsigned int seq;

	if (name)
		mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, name);
	if (compact)
		mnl_attr_put(nlh, SECMAP_A_MODULE_COMPACT, 0, NULL);
	seq = nlh->nlmsg_seq;
	ASSERT_LT(0, mnl_socket_sendto(self->sock, nlh, nlh->nlmsg_len));
	while (ret > MNL_CB_STOP) {
		len = mnl_socket_recvfrom(self->sock, self->buf, sizeof(self->buf));
		ASSERT_LT(0, len);
		ret = mnl_cb_run(self->buf, len, seq, mnl_socket_get_portid(self->sock),
				 sections_cb, &t);
	}
	ASSERT_EQ(MNL_CB_STOP, ret) TH_LOG("%s", strerror(errno));
	return t;
}

/*
 * The section table (family version 2) and the nests that older clients
 * still get say the same of every section, in the same order; each reply
 * uses only the spelling asked for.
 */
TEST_F(nl, compact_reply_spells_the_same_sections)
{
	const char *names[] = { "secmap", NULL };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct sections_text nested = get_sections(_metadata, self, names[i], false);
		struct sections_text compact = get_sections(_metadata, self, names[i], true);

		EXPECT_LT(0, nested.nests) TH_LOG("%s", names[i] ?: "dump");
		EXPECT_EQ(0, nested.tables);
		EXPECT_EQ(0, compact.nests);
		EXPECT_LT(0, compact.tables);
		ASSERT_NE(NULL, nested.text);
		ASSERT_NE(NULL, compact.text);
		ASSERT_EQ(nested.len, compact.len);
		EXPECT_EQ(0, memcmp(nested.text, compact.text, nested.len))
			TH_LOG("%s: nests\n%.*s\ntable\n%.*s", names[i] ?: "dump",
			       (int)nested.len, nested.text, (int)compact.len, compact.text);
		free(nested.text);
		free(compact.text);
	}
}

/* A flag carries nothing: the core's policy check refuses four bytes of payload. */
TEST_F(nl, compact_with_payload_is_refused)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION, 0);
	struct reply r;

	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "secmap");
	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_COMPACT, 1);
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(-ERANGE, r.error) TH_LOG("extack: %s", r.extack);
	EXPECT_LE(0, r.bad_attr_offset);
}

TEST_F(nl, get_without_name_is_einval)
{
	struct reply r = transact(_metadata, self,
				  request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION, 0));

	struct utsname uts;
	int major, minor;

	EXPECT_EQ(-EINVAL, r.error);
	/* The extack names the missing attribute (6.1 on) rather than saying it in words. */
	ASSERT_EQ(0, uname(&uts));
	ASSERT_EQ(2, sscanf(uts.release, "%d.%d", &major, &minor));
	if (major > 6 || (major == 6 && minor >= 1)) {
		EXPECT_EQ(SECMAP_A_MODULE_NAME, r.missing_attr);
	} else {
		EXPECT_STREQ("required attribute missing", r.extack);
	}
}

TEST_F(nl, unknown_attribute_is_einval)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION, 0);
	struct reply r;

	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "secmap");
	mnl_attr_put_u32(nlh, 200, 1);
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(-EINVAL, r.error);
	EXPECT_NE(0, r.extack[0]);
	EXPECT_LE(0, r.bad_attr_offset);
}

TEST_F(nl, name_of_wrong_type_is_einval)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION, 0);
	struct reply r;

	/* Four bytes of binary, no terminating NUL. */
	mnl_attr_put_u32(nlh, SECMAP_A_MODULE_NAME, 0x41414141);
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(-EINVAL, r.error);
	EXPECT_NE(0, r.extack[0]);
}

TEST_F(nl, oversized_name_is_rejected)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION, 0);
	char name[200];
	struct reply r;

	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, name);
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(-EINVAL, r.error) TH_LOG("got %d (%s)", r.error, r.extack);
	EXPECT_NE(0, r.extack[0]);
	EXPECT_LE(0, r.bad_attr_offset);
}

TEST_F(nl, dump_with_unknown_attribute_is_einval)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, SECMAP_GENL_VERSION,
				       NLM_F_DUMP);
	struct reply r;

	mnl_attr_put_u64(nlh, SECMAP_A_MODULE_TAINT, 1);
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(-EINVAL, r.error);
	EXPECT_NE(0, r.extack[0]);
	EXPECT_EQ(0, r.nr_messages);
}

TEST_F(nl, wrong_version_is_eopnotsupp)
{
	uint8_t versions[] = { 0, SECMAP_GENL_VERSION + 1 };
	unsigned int i;

	for (i = 0; i < sizeof(versions); i++) {
		struct nlmsghdr *nlh = request(self, SECMAP_CMD_MODULE_GET, versions[i], 0);
		struct reply r;

		mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "secmap");
		r = transact(_metadata, self, nlh);
		EXPECT_EQ(-EOPNOTSUPP, r.error) TH_LOG("version %u", versions[i]);
		EXPECT_STREQ("unsupported secmap family version in request", r.extack);

		r = transact(_metadata, self, request(self, SECMAP_CMD_MODULE_GET, versions[i],
						       NLM_F_DUMP));
		EXPECT_EQ(-EOPNOTSUPP, r.error) TH_LOG("dump, version %u", versions[i]);
		EXPECT_EQ(0, r.nr_messages);
	}
}

TEST_F(nl, reserved_header_bits_and_flags_are_einval)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_INFO_GET, SECMAP_GENL_VERSION, 0);
	struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct reply r;

	genl->reserved = 1;
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(-EINVAL, r.error);
	EXPECT_NE(0, r.extack[0]);

	/* NLM_F_REPLACE means nothing for a GET: strict families refuse it. */
	r = transact(_metadata, self, request(self, SECMAP_CMD_INFO_GET, SECMAP_GENL_VERSION,
					       NLM_F_REPLACE));
	EXPECT_EQ(-EINVAL, r.error);
	EXPECT_NE(0, r.extack[0]);
}

TEST_F(nl, unknown_command_and_flags_are_refused)
{
	struct reply r;

	r = transact(_metadata, self, request(self, 99, SECMAP_GENL_VERSION, 0));
	EXPECT_EQ(-EOPNOTSUPP, r.error);
	/* INFO has no dump. */
	r = transact(_metadata, self, request(self, SECMAP_CMD_INFO_GET, SECMAP_GENL_VERSION,
					       NLM_F_DUMP));
	EXPECT_EQ(-EOPNOTSUPP, r.error);
	/* Notifications are sent by the kernel, never requested. */
	r = transact(_metadata, self, request(self, SECMAP_CMD_MODULE_NEW_NTF,
					       SECMAP_GENL_VERSION, 0));
	EXPECT_EQ(-EOPNOTSUPP, r.error);
}

TEST_F(nl, info_refuses_attributes)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_INFO_GET, SECMAP_GENL_VERSION, 0);
	struct reply r;

	mnl_attr_put_u32(nlh, SECMAP_A_INFO_VERSION, 1);
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(-EINVAL, r.error);
	EXPECT_NE(0, r.extack[0]);

	r = transact(_metadata, self, request(self, SECMAP_CMD_INFO_GET, SECMAP_GENL_VERSION, 0));
	EXPECT_EQ(0, r.error) TH_LOG("extack: %s", r.extack);
	EXPECT_EQ(1, r.nr_messages);
}

TEST_F(nl, subscribe_refuses_attributes)
{
	struct nlmsghdr *nlh = request(self, SECMAP_CMD_EVENTS_SUBSCRIBE, SECMAP_GENL_VERSION, 0);
	struct reply r;

	mnl_attr_put_strz(nlh, SECMAP_A_MODULE_NAME, "secmap");
	r = transact(_metadata, self, nlh);
	EXPECT_EQ(-EINVAL, r.error);
	EXPECT_NE(0, r.extack[0]);
	r = transact(_metadata, self, request(self, SECMAP_CMD_EVENTS_SUBSCRIBE, 0, 0));
	EXPECT_EQ(-EOPNOTSUPP, r.error);
	EXPECT_NE(0, r.extack[0]);
}

/* Count datagrams from the events group arriving within @ms. */
static int count_events(struct __test_metadata *_metadata, FIXTURE_DATA(nl) *self, int ms)
{
	struct pollfd pfd = { .fd = mnl_socket_get_fd(self->sock), .events = POLLIN };
	int n = 0;

	while (poll(&pfd, 1, ms) > 0) {
		int len = mnl_socket_recvfrom(self->sock, self->buf, sizeof(self->buf));

		if (len < 0 && errno == ENOBUFS)
			continue;
		ASSERT_LT(0, len);
		if (((struct nlmsghdr *)self->buf)->nlmsg_type == self->family)
			n++;
		ms = 200;
	}
	return n;
}

/*
 * Anyone may join the group, but the kernel delivers only to sockets that
 * subscribed, which needs what reading addresses needs: checked here in
 * raw netlink, so no library check can stand in for the kernel's.
 */
TEST_F(nl, events_reach_only_subscribed_sockets)
{
	unsigned int group = self->mcgrp_events;
	struct reply r;

	ASSERT_EQ(0, mnl_socket_setsockopt(self->sock, NETLINK_ADD_MEMBERSHIP, &group,
					   sizeof(group)));
	ASSERT_EQ(0, load_module(LATE_KO));
	ASSERT_EQ(0, unload_module("secmap_test_late"));
	EXPECT_EQ(0, count_events(_metadata, self, 1000))
		TH_LOG("a group member that did not subscribe received events");

	r = transact(_metadata, self, request(self, SECMAP_CMD_EVENTS_SUBSCRIBE,
					       SECMAP_GENL_VERSION, 0));
	ASSERT_EQ(0, r.error) TH_LOG("extack: %s", r.extack);
	ASSERT_EQ(0, load_module(LATE_KO));
	ASSERT_EQ(0, unload_module("secmap_test_late"));
	/* new, live, gone */
	EXPECT_EQ(3, count_events(_metadata, self, 2000));
}

TEST_HARNESS_MAIN
