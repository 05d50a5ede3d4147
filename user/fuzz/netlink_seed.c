// SPDX-License-Identifier: GPL-2.0
/*
 * Seed for netlink_fuzz: a datagram as the kernel sends them, one MODULE_GET
 * reply (sections, regions, build-id), an INFO_GET reply, and NEW, LIVE
 * and GONE events, built with the unit tests' message helpers.
 *
 *   netlink_seed FILE
 */
#include <stdio.h>
#include <string.h>

#include "../tests/msg.h"

static unsigned char buf[16384] __attribute__((aligned(8)));

static const struct msg_sec compact_secs[] = {
	{ ".text", 0xffffffffc0564000ULL, 0, SECMAP_REGION_TEXT },
	{ ".init.text", 0xffffffffc0568000ULL, SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, -1 },
	{ ".data..percpu", 0xffffe8ffffc01000ULL, 0, SECMAP_REGION_PERCPU },
};

int main(int argc, char **argv)
{
	static const uint8_t id[20] = { 0x3f, 0x2a, 0x11, 0x09 };
	size_t off = 0;
	struct nlmsghdr *nlh;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE\n", argv[0]);
		return 2;
	}
	nlh = msg_module(buf + off, "dummy");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, id, sizeof(id));
	msg_section_full(nlh, ".text", 0xffffffffc0564000ULL, 0, SECMAP_REGION_TEXT);
	msg_section_full(nlh, ".init.text", 0xffffffffc0568000ULL,
			 SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, -1);
	msg_section_full(nlh, ".data..percpu", 0xffffe8ffffc01000ULL, 0, SECMAP_REGION_PERCPU);
	msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0564000ULL, 8192);
	off += NLMSG_ALIGN(nlh->nlmsg_len);
	/* The same module as a reply to a compact request sends it. */
	nlh = msg_module(buf + off, "compact");
	msg_module_info(nlh, SECMAP_MODULE_STATE_LIVE, 0, id, sizeof(id));
	msg_region(nlh, SECMAP_REGION_TEXT, 0xffffffffc0564000ULL, 8192);
	msg_section_table(nlh, compact_secs, sizeof(compact_secs) / sizeof(compact_secs[0]), 1);
	off += NLMSG_ALIGN(nlh->nlmsg_len);
	nlh = msg_info(buf + off, 1, 42, "6.12.0-test", SECMAP_HOOK_TRACEPOINT, 7);
	off += NLMSG_ALIGN(nlh->nlmsg_len);
	nlh = msg_module(buf + off, "late");
	nlh->nlmsg_seq = 0;
	((struct genlmsghdr *)mnl_nlmsg_get_payload(nlh))->cmd = SECMAP_CMD_MODULE_NEW_NTF;
	msg_module_info(nlh, SECMAP_MODULE_STATE_COMING, 0, id, sizeof(id));
	msg_section_full(nlh, ".text", 0xffffffffc0600000ULL, 0, SECMAP_REGION_TEXT);
	msg_event(nlh, 8, 8000, 16000);
	off += NLMSG_ALIGN(nlh->nlmsg_len);
	nlh = msg_ntf(buf + off, SECMAP_CMD_MODULE_LIVE_NTF, "late", SECMAP_MODULE_STATE_LIVE, 9);
	off += NLMSG_ALIGN(nlh->nlmsg_len);
	nlh = msg_ntf(buf + off, SECMAP_CMD_MODULE_GONE_NTF, "late", SECMAP_MODULE_STATE_GOING, 10);
	off += NLMSG_ALIGN(nlh->nlmsg_len);

	f = fopen(argv[1], "wb");
	if (!f || fwrite(buf, 1, off, f) != off || fclose(f)) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
