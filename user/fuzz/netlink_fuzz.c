// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the netlink reply and event parsers: any bytes, as
 * the stream of messages one recvmsg() returns. Each message mnl_cb_run()
 * would hand on (its nlmsg_len within the datagram) goes to the MODULE_GET
 * reply, INFO_GET reply and event parsers; every string and byte they hand
 * back is touched, so ASan sees an overrun.
 *
 *   make -C user fuzz [FUZZ_SECONDS=N]
 */
#include <stdint.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "internal.h"
#include "secmap.h"

static volatile size_t sink;

static size_t touch_module(const struct secmap_module *mod)
{
	const uint8_t *id;
	size_t sum = strlen(secmap_module_name(mod)), i, n;

	n = secmap_module_build_id(mod, &id);
	for (i = 0; i < n; i++)
		sum += id[i];
	for (i = 0; i < secmap_module_section_count(mod); i++) {
		const struct secmap_section *sec = secmap_module_section(mod, i);

		sum += strlen(secmap_section_name(sec)) + secmap_section_addr(sec);
	}
	return sum + secmap_module_region_count(mod);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct libsecmap_event_state st = { 0 };
	struct secmap_snapshot *snap = libsecmap_snapshot_new();
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)data;
	size_t left = size > 65536 ? 65536 : size, sum = 0, step, i;

	if (!snap)
		return 0;
	/* Aligned as a receive buffer is: copy, since libFuzzer's data need not be. */
	static uint8_t buf[65536] __attribute__((aligned(8)));
	memcpy(buf, data, left);
	nlh = (const struct nlmsghdr *)buf;
	/* As the library walks a datagram (libsecmap_nlmsg_ok, not mnl_nlmsg_ok). */
	for (; libsecmap_nlmsg_ok(nlh, left);
	     left -= step, nlh = (const struct nlmsghdr *)((const char *)nlh + step)) {
		SECMAP_OPTS(secmap_info, info);
		struct secmap_event *ev = NULL;

		/* The last message need not be padded to 4 bytes. */
		step = MNL_ALIGN(nlh->nlmsg_len) < left ? MNL_ALIGN(nlh->nlmsg_len) : left;

		libsecmap_parse_module_msg(nlh, snap);
		if (!libsecmap_parse_info_msg(nlh, &info))
			sum += strlen(info.release);
		if (!libsecmap_parse_event_msg(nlh, &st, &ev) && ev) {
			if (secmap_event_module(ev))
				sum += touch_module(secmap_event_module(ev));
			secmap_event_free(ev);
		}
	}
	for (i = 0; i < secmap_snapshot_module_count(snap); i++)
		sum += touch_module(secmap_snapshot_module(snap, i));
	sink = sum;
	secmap_snapshot_free(snap);
	return 0;
}
