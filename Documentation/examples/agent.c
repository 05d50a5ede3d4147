// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A profiling agent's use of libsecmap: follow module loads and unloads
 * through secmap.ko's events, keep a live resolver, and resolve the kernel
 * addresses read on stdin, one per line: "ADDR [TIME]" (hex address;
 * TIME in local_clock() ns, perf's sample clock; without it, the latest).
 *
 *   cc -o agent agent.c $(pkg-config --cflags --libs libsecmap)
 *   ./agent [KO_DIR...]     (.ko files are searched there first)
 *
 * Each load and unload is printed as "# load|gone|live MODULE TIME" once
 * the resolver knows it; each address as "ADDR MODULE SECTION+OFF
 * SYMBOL+OFF" ("-" for what is unknown), or "ADDR [unknown]".
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <secmap/secmap.h>

static int add(void *ctx, const struct secmap_record *rec)
{
	return secmap_live_add(ctx, rec);
}

static void resolve_line(struct secmap_live *live, const char *line)
{
	uint64_t addr, time = SECMAP_TIME_ANY;
	SECMAP_OPTS(secmap_resolution, r);
	unsigned int token;
	const struct secmap_resolver *res;
	char *end;

	addr = strtoull(line, &end, 16);
	if (end == line)
		return;
	if (*end == ' ')
		time = strtoull(end + 1, NULL, 10);
	res = secmap_live_enter(live, &token);
	if (!res || secmap_resolve(res, addr, time, &r))
		printf("%#" PRIx64 " [unknown]\n", addr);
	else if (r.section)
		printf("%#" PRIx64 " %s %s+%#" PRIx64 " %s+%#" PRIx64 "\n", addr, r.module,
		       r.section, r.section_offset, r.symbol ? r.symbol : "-",
		       r.symbol ? r.symbol_offset : 0);
	else
		printf("%#" PRIx64 " %s - %s+%#" PRIx64 "\n", addr, r.module,
		       r.symbol ? r.symbol : "-", r.symbol ? r.symbol_offset : 0);
	secmap_live_exit(live, token);
	fflush(stdout);
}

static const char *kind(uint32_t type)
{
	if (type == SECMAP_CMD_MODULE_NEW_NTF)
		return "load";
	if (type == SECMAP_CMD_MODULE_LIVE_NTF)
		return "live";
	return type == SECMAP_CMD_MODULE_GONE_NTF ? "gone" : "resync";
}

/* Every event queued, into the resolver; then one new generation for them all. */
static int follow_events(struct secmap_client *client, struct secmap_recorder *rec,
			 struct secmap_live *live)
{
	struct secmap_event *ev;
	char lines[4096] = "";
	size_t used = 0;
	int err;

	while (!(err = secmap_client_next_event(client, &ev, 0))) {
		const struct secmap_module *mod = secmap_event_module(ev);

		err = secmap_recorder_event(rec, ev);
		if (used < sizeof(lines) - 256)
			used += snprintf(lines + used, sizeof(lines) - used, "# %s %s %" PRIu64 "\n",
					 kind(secmap_event_type(ev)),
					 mod ? secmap_module_name(mod) : "-",
					 secmap_event_time_local_ns(ev));
		secmap_event_free(ev);
		if (err)
			return err;
	}
	if (err != -EAGAIN && err != -EBUSY && err != -EPROTO)
		return err;
	err = secmap_live_publish(live);
	fputs(lines, stdout);
	fflush(stdout);
	return err;
}

int main(int argc, char **argv)
{
	SECMAP_OPTS(secmap_ko_search, search, .paths = (const char *const *)argv + (argc > 0));
	SECMAP_OPTS(secmap_resolver_opts, ropts, .search = &search);
	SECMAP_OPTS(secmap_live_opts, lopts, .resolver = &ropts);
	struct secmap_live *live = NULL;
	struct secmap_recorder *rec = NULL;
	struct secmap_client *client = NULL;
	struct secmap_snapshot *snap = NULL;
	char line[256];
	int err = secmap_live_new(&lopts, &live);
	SECMAP_OPTS(secmap_recorder_opts, opts, .record = add, .ctx = live);

	if (!err)
		err = secmap_recorder_new(&opts, &rec);
	/* Subscribe, then dump: the snapshot and the events meet exactly. */
	if (!err)
		err = secmap_client_open(&client);
	if (!err)
		err = secmap_client_subscribe(client);
	if (!err)
		err = secmap_client_dump(client, &snap);
	if (!err)
		err = secmap_recorder_snapshot(rec, snap, SECMAP_RESYNC_START,
					       SECMAP_SOURCE_NETLINK, 0);
	if (!err)
		err = secmap_live_publish(live);
	secmap_snapshot_free(snap);
	if (!err)
		printf("# ready\n");
	fflush(stdout);
	setvbuf(stdin, NULL, _IONBF, 0);	/* poll() sees what stdio has not taken */
	while (!err) {
		struct pollfd pfd[2] = {
			{ .fd = 0, .events = POLLIN },
			{ .fd = secmap_client_fd(client), .events = POLLIN },
		};

		if (poll(pfd, 2, -1) < 0)
			continue;
		if (pfd[1].revents)
			err = follow_events(client, rec, live);
		if (!err && pfd[0].revents) {
			if (!fgets(line, sizeof(line), stdin))
				break;
			resolve_line(live, line);
		}
	}
	if (err)
		fprintf(stderr, "agent: %s\n", client ? strerror(-err) : "secmap.ko not loaded?");
	secmap_client_close(client);
	secmap_recorder_free(rec);
	secmap_live_free(live);
	return err ? 1 : 0;
}
