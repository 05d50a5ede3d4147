// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM tests of what secmap knows beyond addresses (state, regions,
 * init sections, build-ids), of its events, of who may read it, and of
 * its behaviour under load and across its own unload.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "secmap.h"
#include "vm_util.h"

#define STAMP_KO	TEST_MODULE_DIR "/secmap_test_stamp.ko"
#define FAIL_KO		TEST_MODULE_DIR "/secmap_test_fail.ko"
#define LATE_KO		TEST_MODULE_DIR "/secmap_test_late.ko"
#define SECMAP_KO	TEST_MODULE_DIR "/secmap.ko"
#define STRESS_CYCLES	200

static unsigned long long read_param(const char *module, const char *param)
{
	char path[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, param);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

/* Next event about @name (others are skipped), or NULL after 10 s. */
static struct secmap_event *next_event_for(struct __test_metadata *_metadata,
					   struct secmap_client *client, const char *name)
{
	time_t deadline = time(NULL) + 10;

	while (time(NULL) < deadline) {
		struct secmap_event *ev = NULL;
		int ret = secmap_client_next_event(client, &ev, 1000);

		if (ret == -EAGAIN)
			continue;
		EXPECT_EQ(0, ret) TH_LOG("next_event: %s", secmap_strerror(ret));
		if (ret)
			return NULL;
		EXPECT_EQ(0, secmap_event_lost(ev)) TH_LOG("events were lost");
		if (!strcmp(secmap_module_name(secmap_event_module(ev)), name))
			return ev;
		secmap_event_free(ev);
	}
	TH_LOG("no event for %s within 10 s", name);
	return NULL;
}

static const struct secmap_region *region_of_type(const struct secmap_module *mod,
						  uint32_t type)
{
	size_t i;

	for (i = 0; i < secmap_module_region_count(mod); i++)
		if (secmap_region_type(secmap_module_region(mod, i)) == type)
			return secmap_module_region(mod, i);
	return NULL;
}

TEST(info_reports_tracepoint_hook_and_release)
{
	struct secmap_client *client = open_client(_metadata);
	SECMAP_OPTS(secmap_info, info);
	char release[65];
	FILE *f;

	ASSERT_NE(NULL, client);
	ASSERT_EQ(0, secmap_client_info(client, &info));
	EXPECT_EQ(SECMAP_GENL_VERSION, info.version);
	EXPECT_EQ(SECMAP_HOOK_TRACEPOINT, info.hook) TH_LOG("load events come after init");
	EXPECT_LT(0, info.generation);
	f = fopen("/proc/sys/kernel/osrelease", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%64s", release));
	fclose(f);
	EXPECT_STREQ(release, info.release);
	secmap_client_close(client);
}

/* MODULE_NEW arrives before init runs, with .init.text covering init. */
TEST(new_event_precedes_init)
{
	struct secmap_client *client = open_client(_metadata);
	const struct secmap_region *init_text;
	const struct secmap_section *sec;
	const struct secmap_module *mod;
	struct secmap_event *ev;
	unsigned long long init_addr, init_clock;
	uint64_t new_seq, new_time;

	ASSERT_NE(NULL, client);
	ASSERT_EQ(0, secmap_client_subscribe(client));
	ASSERT_EQ(0, load_module(STAMP_KO));
	init_addr = read_param("secmap_test_stamp", "init_addr");
	init_clock = read_param("secmap_test_stamp", "init_clock_ns");
	ASSERT_NE(0, init_addr);

	ev = next_event_for(_metadata, client, "secmap_test_stamp");
	ASSERT_NE(NULL, ev);
	ASSERT_EQ(SECMAP_CMD_MODULE_NEW_NTF, secmap_event_type(ev));
	mod = secmap_event_module(ev);
	EXPECT_EQ(SECMAP_MODULE_STATE_COMING, secmap_module_state(mod));
	new_seq = secmap_event_seq(ev);
	new_time = secmap_event_time_local_ns(ev);
	EXPECT_LT(new_time, init_clock) TH_LOG("MODULE_NEW at %" PRIu64 ", init at %llu",
					       new_time, init_clock);
	EXPECT_NE(0, secmap_event_time_mono_ns(ev));

	sec = secmap_module_find_section(mod, ".init.text");
	init_text = region_of_type(mod, SECMAP_REGION_INIT_TEXT);
	ASSERT_NE(NULL, sec);
	ASSERT_NE(NULL, init_text);
	EXPECT_EQ(SECMAP_REGION_INIT_TEXT, secmap_section_region(sec));
	EXPECT_EQ(SECMAP_SECTION_F_INIT, secmap_section_flags(sec)) TH_LOG("not freed yet");
	EXPECT_LE(secmap_section_addr(sec), init_addr);
	EXPECT_LT(init_addr, secmap_region_base(init_text) + secmap_region_size(init_text));
	secmap_event_free(ev);

	ev = next_event_for(_metadata, client, "secmap_test_stamp");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_LIVE_NTF, secmap_event_type(ev));
	EXPECT_EQ(new_seq + 1, secmap_event_seq(ev));
	EXPECT_LE(new_time, secmap_event_time_local_ns(ev));
	secmap_event_free(ev);

	ASSERT_EQ(0, unload_module("secmap_test_stamp"));
	ev = next_event_for(_metadata, client, "secmap_test_stamp");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_GONE_NTF, secmap_event_type(ev));
	secmap_event_free(ev);
	secmap_client_close(client);
}

TEST(failed_init_is_new_then_gone)
{
	struct secmap_client *client = open_client(_metadata);
	struct secmap_snapshot *snap;
	struct secmap_event *ev;

	ASSERT_NE(NULL, client);
	ASSERT_EQ(0, secmap_client_subscribe(client));
	EXPECT_EQ(-ENODEV, load_module(FAIL_KO));

	ev = next_event_for(_metadata, client, "secmap_test_fail");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_NEW_NTF, secmap_event_type(ev));
	secmap_event_free(ev);
	ev = next_event_for(_metadata, client, "secmap_test_fail");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_GONE_NTF, secmap_event_type(ev));
	secmap_event_free(ev);
	secmap_client_close(client);

	snap = dump(_metadata);
	ASSERT_NE(NULL, snap);
	EXPECT_EQ(NULL, secmap_snapshot_find(snap, "secmap_test_fail"));
	secmap_snapshot_free(snap);
}

/* Live modules: init sections flagged freed; every other section in a region. */
TEST(regions_contain_sections_and_init_is_freed)
{
	struct secmap_snapshot *snap = dump(_metadata);
	size_t m, s, checked = 0;

	ASSERT_NE(NULL, snap);
	for (m = 0; m < secmap_snapshot_module_count(snap); m++) {
		const struct secmap_module *mod = secmap_snapshot_module(snap, m);
		const char *name = secmap_module_name(mod);

		EXPECT_EQ(SECMAP_MODULE_STATE_LIVE, secmap_module_state(mod)) TH_LOG("%s", name);
		EXPECT_EQ(NULL, region_of_type(mod, SECMAP_REGION_INIT_TEXT))
			TH_LOG("%s: init region of a live module", name);
		for (s = 0; s < secmap_module_section_count(mod); s++) {
			const struct secmap_section *sec = secmap_module_section(mod, s);
			const char *sname = secmap_section_name(sec);
			uint32_t flags = secmap_section_flags(sec);
			const struct secmap_region *region;
			uint64_t addr = secmap_section_addr(sec);

			if (!strncmp(sname, ".init", 5))
				EXPECT_TRUE(flags & SECMAP_SECTION_F_INIT) TH_LOG("%s %s", name, sname);
			/* Init memory includes the full .symtab/.strtab, not only .init*. */
			if (flags & SECMAP_SECTION_F_INIT) {
				EXPECT_EQ(SECMAP_SECTION_F_INIT | SECMAP_SECTION_F_FREED, flags)
					TH_LOG("%s %s", name, sname);
				EXPECT_EQ(-1, secmap_section_region(sec)) TH_LOG("%s %s", name, sname);
				continue;
			}
			EXPECT_EQ(0, flags) TH_LOG("%s %s", name, sname);
			EXPECT_LE(0, secmap_section_region(sec)) TH_LOG("%s %s in no region",
									name, sname);
			region = region_of_type(mod, secmap_section_region(sec));
			ASSERT_NE(NULL, region) TH_LOG("%s %s", name, sname);
			EXPECT_LE(secmap_region_base(region), addr) TH_LOG("%s %s", name, sname);
			EXPECT_LT(addr - secmap_region_base(region), secmap_region_size(region))
				TH_LOG("%s %s", name, sname);
			checked++;
		}
	}
	EXPECT_LT(100, checked);
	secmap_snapshot_free(snap);
}

static void expect_build_id(struct __test_metadata *_metadata,
			    const struct secmap_snapshot *snap, const char *name, const char *ko)
{
	const struct secmap_module *mod = secmap_snapshot_find(snap, name);
	struct build_id want = { 0 };
	const uint8_t *id = NULL;
	size_t len;

	ASSERT_NE(NULL, mod) TH_LOG("%s not in dump", name);
	ASSERT_EQ(0, ko_build_id(ko, &want)) TH_LOG("%s has no build-id note", ko);
	len = secmap_module_build_id(mod, &id);
	ASSERT_EQ(want.len, len) TH_LOG("%s", name);
	EXPECT_EQ(0, memcmp(want.bytes, id, len)) TH_LOG("%s: build-id differs from %s", name, ko);
}

TEST(build_ids_equal_the_ko_notes)
{
	struct secmap_snapshot *snap = dump(_metadata);
	char name[64], ko[256];
	int real = 0;
	FILE *list;

	ASSERT_NE(NULL, snap);
	expect_build_id(_metadata, snap, "secmap", SECMAP_KO);
	expect_build_id(_metadata, snap, "secmap_test_sections",
			TEST_MODULE_DIR "/secmap_test_sections.ko");
	list = fopen(REAL_MODULE_LIST, "r");
	ASSERT_NE(NULL, list);
	while (fscanf(list, "%63s", name) == 1) {
		snprintf(ko, sizeof(ko), EARLY_MODULE_DIR "/%s.ko", name);
		expect_build_id(_metadata, snap, name, ko);
		real++;
	}
	fclose(list);
	EXPECT_LE(3, real);
	secmap_snapshot_free(snap);
}

/* .data..percpu is not in sysfs (it loses SHF_ALLOC at load); secmap adds it. */
TEST(percpu_section_is_reported)
{
	struct secmap_snapshot *snap = dump(_metadata);
	const struct secmap_section *sec;
	const struct secmap_region *region;
	const struct secmap_module *mod;

	ASSERT_NE(NULL, snap);
	ASSERT_TRUE(ko_has_section(TEST_MODULE_DIR "/secmap_test_sections.ko", ".data..percpu"));
	mod = secmap_snapshot_find(snap, "secmap_test_sections");
	ASSERT_NE(NULL, mod);
	sec = secmap_module_find_section(mod, ".data..percpu");
	ASSERT_NE(NULL, sec);
	EXPECT_EQ(SECMAP_REGION_PERCPU, secmap_section_region(sec));
	region = region_of_type(mod, SECMAP_REGION_PERCPU);
	ASSERT_NE(NULL, region);
	EXPECT_EQ(secmap_region_base(region), secmap_section_addr(sec));
	EXPECT_LE(sizeof(int), secmap_region_size(region));
	secmap_snapshot_free(snap);
}

/* Taint bits match the letters of /sys/module/NAME/taint (kernel/panic.c). */
TEST(taint_matches_sysfs)
{
	static const struct { int bit; char letter; } known[] = {
		{ 0, 'P' }, { 12, 'O' }, { 13, 'E' }, { 15, 'K' }, { 16, 'X' }, { 10, 'C' },
	};
	struct secmap_snapshot *snap = dump(_metadata);
	size_t m, k, tainted = 0;

	ASSERT_NE(NULL, snap);
	for (m = 0; m < secmap_snapshot_module_count(snap); m++) {
		const struct secmap_module *mod = secmap_snapshot_module(snap, m);
		uint64_t taint = secmap_module_taint(mod);
		char path[256], letters[64] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/module/%s/taint", secmap_module_name(mod));
		f = fopen(path, "r");
		ASSERT_NE(NULL, f) TH_LOG("%s", path);
		if (fscanf(f, "%63s", letters) != 1)
			letters[0] = '\0';
		fclose(f);
		for (k = 0; k < sizeof(known) / sizeof(known[0]); k++)
			EXPECT_EQ(!!(taint & (1ULL << known[k].bit)),
				  strchr(letters, known[k].letter) != NULL)
				TH_LOG("%s: taint 0x%" PRIx64 ", sysfs '%s'", secmap_module_name(mod),
				       taint, letters);
		tainted += taint != 0;
	}
	/* Our out-of-tree modules are tainted 'O': the check compared something. */
	EXPECT_LT(0, tainted);
	secmap_snapshot_free(snap);
}

static int drop_caps(uint64_t caps)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	int i;

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	for (i = 0; i < 2; i++) {
		data[i].effective &= ~(uint32_t)(caps >> (32 * i));
		data[i].permitted &= ~(uint32_t)(caps >> (32 * i));
	}
	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

/* The harness runs each test in its own process, so dropping is local. */
TEST(without_cap_syslog_reads_are_refused)
{
	struct secmap_snapshot *snap = NULL;
	struct secmap_client *client;
	SECMAP_OPTS(secmap_info, info);

	ASSERT_EQ(0, drop_caps(1ULL << CAP_SYSLOG));
	/* The kernel checks the capabilities of the socket's opener. */
	client = open_client(_metadata);
	ASSERT_NE(NULL, client);
	EXPECT_EQ(-EPERM, secmap_client_dump(client, &snap));
	EXPECT_EQ(-EPERM, secmap_client_get(client, "secmap", &snap));
	EXPECT_EQ(-EPERM, secmap_client_subscribe(client));
	EXPECT_EQ(0, secmap_client_info(client, &info)) TH_LOG("INFO shows no addresses");
	secmap_client_close(client);
}

/* CAP_SYSLOG is all it takes: no CAP_SYS_ADMIN, no CAP_NET_ADMIN. */
TEST(cap_syslog_alone_receives_events)
{
	struct secmap_client *client;
	struct secmap_event *ev;

	ASSERT_EQ(0, drop_caps(1ULL << CAP_SYS_ADMIN | 1ULL << CAP_NET_ADMIN));
	client = open_client(_metadata);
	ASSERT_NE(NULL, client);
	ASSERT_EQ(0, secmap_client_subscribe(client));
	/* Loading needs CAP_SYS_MODULE, which we kept. */
	ASSERT_EQ(0, load_module(LATE_KO));
	ev = next_event_for(_metadata, client, "secmap_test_late");
	EXPECT_EQ(0, unload_module("secmap_test_late"));
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_NEW_NTF, secmap_event_type(ev));
	EXPECT_LT(0, secmap_module_section_count(secmap_event_module(ev)));
	secmap_event_free(ev);
	secmap_client_close(client);
}

/*
 * A closed socket gives its subscription back (NETLINK_URELEASE), or the
 * kernel's bound on subscribers would soon refuse everyone.
 */
TEST(subscriptions_end_with_their_sockets)
{
	struct secmap_client *clients[65];
	int i;

	for (i = 0; i < 200; i++) {
		clients[0] = open_client(_metadata);
		ASSERT_NE(NULL, clients[0]);
		ASSERT_EQ(0, secmap_client_subscribe(clients[0])) TH_LOG("round %d", i);
		secmap_client_close(clients[0]);
	}
	for (i = 0; i < 65; i++) {
		clients[i] = open_client(_metadata);
		ASSERT_NE(NULL, clients[i]);
	}
	for (i = 0; i < 64; i++)
		ASSERT_EQ(0, secmap_client_subscribe(clients[i])) TH_LOG("subscriber %d", i);
	EXPECT_EQ(-ENOSPC, secmap_client_subscribe(clients[64]));
	secmap_client_close(clients[0]);
	EXPECT_EQ(0, secmap_client_subscribe(clients[64]));
	for (i = 1; i < 65; i++)
		secmap_client_close(clients[i]);
}

static int write_param(const char *module, const char *param, unsigned long long v)
{
	char path[256];
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module, param);
	f = fopen(path, "w");
	if (!f)
		return -1;
	ret = fprintf(f, "%llu\n", v) < 0 ? -1 : 0;
	return fclose(f) ? -1 : ret;
}

/* A client subscribed with a receive buffer so small that 20 cycles overrun it. */
static struct secmap_client *overrun_client(struct __test_metadata *_metadata,
					    uint64_t *first_seq)
{
	struct secmap_client *client = open_client(_metadata);
	SECMAP_OPTS(secmap_info, info);
	int small = 1, i, fd;

	if (!client)
		return NULL;
	EXPECT_EQ(0, secmap_client_subscribe(client));
	EXPECT_EQ(0, secmap_client_info(client, &info));
	*first_seq = info.event_seq + 1;
	fd = secmap_client_fd(client);
	/* The kernel rounds this up to its minimum, a few KiB. */
	EXPECT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small)));
	for (i = 0; i < 20; i++) {
		EXPECT_EQ(0, load_module(LATE_KO));
		EXPECT_EQ(0, unload_module("secmap_test_late"));
	}
	/* Left loaded, so a snapshot has something of ours to show. */
	EXPECT_EQ(0, load_module(LATE_KO));
	return client;
}

/*
 * Overrun the listener's socket on purpose: the journal gives back what
 * the socket dropped, so every event comes, in order, as if none was lost.
 */
TEST(overrun_is_recovered_from_the_journal)
{
	static const uint32_t cycle[] = {
		SECMAP_CMD_MODULE_NEW_NTF, SECMAP_CMD_MODULE_LIVE_NTF, SECMAP_CMD_MODULE_GONE_NTF,
	};
	struct secmap_client *client;
	struct secmap_event *ev = NULL;
	uint64_t seq, i;

	if (!read_param("secmap", "journal_kb"))
		SKIP(return, "secmap.ko loaded with journal_kb=0");
	client = overrun_client(_metadata, &seq);
	ASSERT_NE(NULL, client);
	/* 20 x (new, live, gone), then new and live: 62 events after subscribing. */
	for (i = 0; i < 62; i++, seq++) {
		ASSERT_EQ(0, secmap_client_next_event(client, &ev, 2000));
		ASSERT_EQ(seq, secmap_event_seq(ev));
		EXPECT_EQ(i < 60 ? cycle[i % 3] : cycle[i - 60], secmap_event_type(ev));
		EXPECT_EQ(0, secmap_event_lost(ev));
		if (secmap_event_type(ev) == SECMAP_CMD_MODULE_NEW_NTF)
			EXPECT_NE(0, secmap_module_section_count(secmap_event_module(ev)));
		secmap_event_free(ev);
	}
	/* The socket did overrun: the journal, not the socket, gave some of them. */
	EXPECT_LE(1, secmap_client_nr_replayed(client));
	TH_LOG("%" PRIu64 " of 62 events replayed from the journal",
	       secmap_client_nr_replayed(client));
	ASSERT_EQ(0, unload_module("secmap_test_late"));
	ASSERT_EQ(0, secmap_client_next_event(client, &ev, 2000));
	EXPECT_EQ(SECMAP_CMD_MODULE_GONE_NTF, secmap_event_type(ev));
	EXPECT_EQ(seq, secmap_event_seq(ev));
	secmap_event_free(ev);
	secmap_client_close(client);
}

/*
 * The same without a journal: instead of a gap, the next event is a
 * resync carrying every module as it is now, saying exactly how many
 * events it replaces, and the events after it continue its sequence.
 * With a journal too small for them all, it says how many are gone.
 */
static void overrun_resync(struct __test_metadata *_metadata, unsigned long long journal_kb)
{
	unsigned long long saved = read_param("secmap", "journal_kb");
	const struct secmap_snapshot *snap;
	struct secmap_client *client;
	struct secmap_event *ev = NULL;
	uint64_t seq, first, last;

	ASSERT_EQ(0, write_param("secmap", "journal_kb", journal_kb));
	client = overrun_client(_metadata, &first);
	EXPECT_EQ(0, write_param("secmap", "journal_kb", saved));
	ASSERT_NE(NULL, client);
	last = first - 1;
	/* Skip what fitted in the buffer; the overrun comes after it. */
	for (;;) {
		ASSERT_EQ(0, secmap_client_next_event(client, &ev, 2000));
		if (secmap_event_type(ev) == SECMAP_EVENT_RESYNC)
			break;
		EXPECT_EQ(0, secmap_event_lost(ev));
		EXPECT_EQ(last + 1, secmap_event_seq(ev));
		last = secmap_event_seq(ev);
		secmap_event_free(ev);
	}
	snap = secmap_event_snapshot(ev);
	ASSERT_NE(NULL, snap);
	EXPECT_EQ(first + 61, secmap_event_seq(ev));
	if (journal_kb) {
		/* The journal kept the last few: those are not lost, only replaced. */
		EXPECT_GT(secmap_event_seq(ev) - last, secmap_event_lost(ev));
	} else {
		EXPECT_EQ(secmap_event_seq(ev) - last, secmap_event_lost(ev));
	}
	EXPECT_LE(1, secmap_event_lost(ev));
	EXPECT_EQ(0, secmap_client_nr_replayed(client));
	EXPECT_NE(NULL, secmap_snapshot_find(snap, "secmap_test_late"));
	EXPECT_NE(NULL, secmap_snapshot_find(snap, "secmap"));
	TH_LOG("journal_kb=%llu: resync at seq %" PRIu64 ", %" PRIu64 " of %" PRIu64
	       " events lost, %zu modules", journal_kb, secmap_event_seq(ev),
	       secmap_event_lost(ev), secmap_event_seq(ev) - last,
	       secmap_snapshot_module_count(snap));
	seq = secmap_event_seq(ev);
	secmap_event_free(ev);

	/* Nothing the snapshot includes comes again; the next one follows it. */
	ASSERT_EQ(0, unload_module("secmap_test_late"));
	ASSERT_EQ(0, secmap_client_next_event(client, &ev, 2000));
	EXPECT_EQ(SECMAP_CMD_MODULE_GONE_NTF, secmap_event_type(ev));
	EXPECT_EQ(seq + 1, secmap_event_seq(ev));
	EXPECT_EQ(0, secmap_event_lost(ev));
	secmap_event_free(ev);
	secmap_client_close(client);
}

TEST(overrun_without_journal_is_recovered_by_a_resync)
{
	overrun_resync(_metadata, 0);
}

TEST(overrun_past_the_journal_says_how_many_are_gone)
{
	overrun_resync(_metadata, 4);
}

/* Subscribed first, a dump is where the events continue: no overlap, no hole. */
TEST(dump_after_subscribing_joins_the_event_stream)
{
	struct secmap_client *client = open_client(_metadata);
	struct secmap_snapshot *snap;
	struct secmap_event *ev = NULL;
	SECMAP_OPTS(secmap_info, info);

	ASSERT_NE(NULL, client);
	ASSERT_EQ(0, secmap_client_subscribe(client));
	/* Events queued before the dump: the dump includes them. */
	ASSERT_EQ(0, load_module(LATE_KO));
	ASSERT_EQ(0, secmap_client_dump(client, &snap));
	EXPECT_NE(NULL, secmap_snapshot_find(snap, "secmap_test_late"));
	secmap_snapshot_free(snap);
	ASSERT_EQ(0, secmap_client_info(client, &info));

	ASSERT_EQ(0, unload_module("secmap_test_late"));
	ASSERT_EQ(0, secmap_client_next_event(client, &ev, 2000));
	/* Not the NEW and LIVE of the load: the dump had them. */
	EXPECT_EQ(SECMAP_CMD_MODULE_GONE_NTF, secmap_event_type(ev));
	EXPECT_EQ(info.event_seq + 1, secmap_event_seq(ev));
	EXPECT_EQ(0, secmap_event_lost(ev));
	secmap_event_free(ev);
	secmap_client_close(client);
}

static int write_sysctl(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	int ret;

	if (!f)
		return -errno;
	ret = fputs(value, f) < 0 ? -EIO : 0;
	return fclose(f) ? -errno : ret;
}

TEST(kptr_restrict_2_hides_addresses)
{
	const char *sysctl = "/proc/sys/kernel/kptr_restrict";
	struct secmap_snapshot *snap = NULL;
	struct secmap_client *client, *listener;
	struct secmap_event *ev;
	char saved[8] = "";
	FILE *f = fopen(sysctl, "r");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%7s", saved));
	fclose(f);
	listener = open_client(_metadata);
	ASSERT_NE(NULL, listener);
	ASSERT_EQ(0, secmap_client_subscribe(listener));
	ASSERT_EQ(0, write_sysctl(sysctl, "2"));

	client = open_client(_metadata);
	EXPECT_EQ(-EPERM, secmap_client_dump(client, &snap));
	EXPECT_EQ(-EPERM, secmap_client_get(client, "secmap", &snap));
	EXPECT_EQ(-EPERM, secmap_client_subscribe(client));
	secmap_client_close(client);

	/* Subscribed before: events still flow, without sections or regions. */
	EXPECT_EQ(0, load_module(LATE_KO));
	ev = next_event_for(_metadata, listener, "secmap_test_late");
	EXPECT_EQ(0, write_sysctl(sysctl, saved));
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_NEW_NTF, secmap_event_type(ev));
	EXPECT_EQ(0, secmap_module_section_count(secmap_event_module(ev)));
	EXPECT_EQ(0, secmap_module_region_count(secmap_event_module(ev)));
	secmap_event_free(ev);
	EXPECT_EQ(0, unload_module("secmap_test_late"));
	secmap_client_close(listener);

	snap = dump(_metadata);
	EXPECT_NE(NULL, snap) TH_LOG("kptr_restrict=%s with CAP_SYSLOG must allow reading", saved);
	secmap_snapshot_free(snap);
}

/*
 * Whether an event carries addresses is decided for its receivers, not by
 * the task that loads the module: at kptr_restrict=1, a loader without
 * CAP_SYSLOG (it needs only CAP_SYS_MODULE) must not strip the addresses
 * from the events of a subscriber that has it. They used to be, as %pK was
 * evaluated in the loader's context. The expected addresses come from the
 * kernel's own sysfs.
 */
TEST(loader_without_cap_syslog_does_not_hide_addresses)
{
	const char *sysctl = "/proc/sys/kernel/kptr_restrict";
	const struct secmap_module *mod;
	struct secmap_client *listener;
	struct secmap_event *ev;
	char saved[8] = "", want[32], path[128];
	int status, with_addr = 0;
	size_t i, n;
	FILE *f = fopen(sysctl, "r");
	pid_t pid;

	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%7s", saved));
	fclose(f);
	ASSERT_EQ(0, write_sysctl(sysctl, "1"));
	listener = open_client(_metadata);
	ASSERT_NE(NULL, listener);
	ASSERT_EQ(0, secmap_client_subscribe(listener));

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(drop_caps(1ULL << CAP_SYSLOG) || load_module(LATE_KO) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("load without CAP_SYSLOG");
	ev = next_event_for(_metadata, listener, "secmap_test_late");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_NEW_NTF, secmap_event_type(ev));
	mod = secmap_event_module(ev);
	n = secmap_module_section_count(mod);
	EXPECT_LT(0, n);
	for (i = 0; i < n; i++) {
		const struct secmap_section *sec = secmap_module_section(mod, i);

		snprintf(path, sizeof(path), "/sys/module/secmap_test_late/sections/%s",
			 secmap_section_name(sec));
		f = fopen(path, "r");
		if (!f || !fgets(want, sizeof(want), f)) {
			if (f)
				fclose(f);
			continue;
		}
		fclose(f);
		EXPECT_EQ(strtoull(want, NULL, 16), secmap_section_addr(sec))
			TH_LOG("%s", secmap_section_name(sec));
		with_addr += secmap_section_addr(sec) != 0;
	}
	EXPECT_LT(0, with_addr) TH_LOG("every section address hidden");
	secmap_event_free(ev);
	EXPECT_EQ(0, unload_module("secmap_test_late"));
	secmap_client_close(listener);
	EXPECT_EQ(0, write_sysctl(sysctl, saved));
}

/* The family belongs to the initial network namespace only. */
TEST(other_network_namespaces_do_not_see_the_family)
{
	struct secmap_client *client = NULL;

	ASSERT_EQ(0, unshare(CLONE_NEWNET));
	EXPECT_EQ(-ENOENT, secmap_client_open(&client));
	secmap_client_close(client);
}

struct stress {
	atomic_bool done;
	unsigned long dumps, inconsistent, events, lost, unpaired, load_errors;
	unsigned long retries;
};

static void *stress_loader(void *arg)
{
	struct stress *st = arg;
	int i;

	for (i = 0; i < STRESS_CYCLES; i++) {
		const char *ko = i % 2 ? LATE_KO : STAMP_KO;
		const char *name = i % 2 ? "secmap_test_late" : "secmap_test_stamp";

		if (load_module(ko) || unload_module(name))
			st->load_errors++;
	}
	atomic_store(&st->done, true);
	return NULL;
}

static void *stress_dumper(void *arg)
{
	struct stress *st = arg;
	struct secmap_client *client;

	if (secmap_client_open(&client))
		return NULL;
	/* Small parts: a dump spans several reads, so loads can interrupt it. */
	if (secmap_client_set_recv_size(client, 4096)) {
		secmap_client_close(client);
		return NULL;
	}
	while (!atomic_load(&st->done)) {
		struct secmap_snapshot *snap = NULL;
		size_t i, j, n;

		if (secmap_client_dump(client, &snap)) {
			st->inconsistent++;
			continue;
		}
		/* A consistent dump never lists a module twice. */
		n = secmap_snapshot_module_count(snap);
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				if (!strcmp(secmap_module_name(secmap_snapshot_module(snap, i)),
					    secmap_module_name(secmap_snapshot_module(snap, j))))
					st->inconsistent++;
		secmap_snapshot_free(snap);
		st->dumps++;
	}
	st->retries = secmap_client_dump_retries(client);
	secmap_client_close(client);
	return NULL;
}

/*
 * A fixture only for its timeout: 200 cycles take seconds, but under a
 * debug kernel on a busy TCG host they took more than the harness's 30 s
 * default. The loop's own deadline (240 s) comes first.
 */
FIXTURE(stress) {};
FIXTURE_SETUP(stress) {}
FIXTURE_TEARDOWN(stress) {}

TEST_F_TIMEOUT(stress, load_unload_with_dumps_and_listener, 300)
{
	struct stress st = { 0 };
	struct secmap_client *listener = open_client(_metadata);
	pthread_t loader, dumper;
	int state[2] = { 0, 0 };	/* per module: 0 none, 1 new, 2 live */
	uint64_t last_seq = 0;
	time_t deadline;

	ASSERT_NE(NULL, listener);
	ASSERT_EQ(0, secmap_client_subscribe(listener));
	ASSERT_EQ(0, pthread_create(&dumper, NULL, stress_dumper, &st));
	ASSERT_EQ(0, pthread_create(&loader, NULL, stress_loader, &st));

	deadline = time(NULL) + 240;
	while (st.events < 3 * STRESS_CYCLES && time(NULL) < deadline) {
		struct secmap_event *ev = NULL;
		const char *name;
		int ret = secmap_client_next_event(listener, &ev, 1000);
		int idx, *s;

		if (ret == -EAGAIN)
			continue;
		if (ret) {
			st.lost++;
			continue;
		}
		name = secmap_module_name(secmap_event_module(ev));
		idx = !strcmp(name, "secmap_test_late");
		if (strcmp(name, "secmap_test_late") && strcmp(name, "secmap_test_stamp")) {
			secmap_event_free(ev);
			continue;
		}
		st.events++;
		st.lost += secmap_event_lost(ev);
		if (last_seq && secmap_event_seq(ev) != last_seq + 1)
			st.lost++;
		last_seq = secmap_event_seq(ev);
		s = &state[idx];
		switch (secmap_event_type(ev)) {
		case SECMAP_CMD_MODULE_NEW_NTF:
			st.unpaired += *s != 0;
			*s = 1;
			break;
		case SECMAP_CMD_MODULE_LIVE_NTF:
			st.unpaired += *s != 1;
			*s = 2;
			break;
		case SECMAP_CMD_MODULE_GONE_NTF:
			st.unpaired += *s != 2;
			*s = 0;
			break;
		}
		secmap_event_free(ev);
	}
	pthread_join(loader, NULL);
	pthread_join(dumper, NULL);
	secmap_client_close(listener);

	TH_LOG("stress: %d cycles, %lu events, %lu lost, %lu unpaired, %lu dumps, "
	       "%lu DUMP_INTR retries, %lu inconsistent, %lu load errors", STRESS_CYCLES,
	       st.events, st.lost, st.unpaired, st.dumps, st.retries, st.inconsistent,
	       st.load_errors);
	EXPECT_EQ(0, st.load_errors);
	EXPECT_EQ(3 * STRESS_CYCLES, st.events);
	EXPECT_EQ(0, st.lost);
	EXPECT_EQ(0, st.unpaired);
	EXPECT_EQ(0, st.inconsistent);
	EXPECT_LT(0, st.dumps);
	EXPECT_LT(0, st.retries) TH_LOG("no dump was ever interrupted: is DUMP_INTR flagged?");
}

/* How many kernel log records contain @needle (reads /dev/kmsg from the start). */
static int count_kmsg(const char *needle)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	char rec[2048];
	ssize_t n;
	int count = 0;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, rec, sizeof(rec) - 1)) != 0) {
		if (n < 0) {
			if (errno == EPIPE)	/* overwritten record: skip */
				continue;
			break;
		}
		rec[n] = '\0';
		count += strstr(rec, needle) != NULL;
	}
	close(fd);
	return count;
}

static void reload_secmap(struct __test_metadata *_metadata, const char *params)
{
	int ret;

	/* An in-flight dump pins the module; retry briefly. */
	for (ret = -EAGAIN; ret == -EAGAIN || ret == -EWOULDBLOCK; usleep(10000))
		ret = unload_module("secmap");
	ASSERT_EQ(0, ret) TH_LOG("rmmod secmap: %s", strerror(-ret));
	ret = load_module_params(SECMAP_KO, params);
	ASSERT_EQ(0, ret) TH_LOG("insmod secmap %s: %s", params, strerror(-ret));
}

/* Without the tracepoint, MODULE_NEW still comes, after init; INFO and the log say so. */
TEST(notifier_fallback_reports_loads_after_init)
{
	const char *notice = "not using the module_load tracepoint (disabled by use_tracepoint=0)";
	struct secmap_client *client;
	unsigned long long init_clock;
	SECMAP_OPTS(secmap_info, info);
	struct secmap_event *ev;
	int before = count_kmsg(notice);

	reload_secmap(_metadata, "use_tracepoint=0");
	client = open_client(_metadata);
	ASSERT_NE(NULL, client);
	ASSERT_EQ(0, secmap_client_info(client, &info));
	EXPECT_EQ(SECMAP_HOOK_NOTIFIER, info.hook);
	EXPECT_EQ(before + 1, count_kmsg(notice)) TH_LOG("the fallback must be logged once");

	ASSERT_EQ(0, secmap_client_subscribe(client));
	ASSERT_EQ(0, load_module(STAMP_KO));
	init_clock = read_param("secmap_test_stamp", "init_clock_ns");
	ev = next_event_for(_metadata, client, "secmap_test_stamp");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_NEW_NTF, secmap_event_type(ev));
	EXPECT_LT(init_clock, secmap_event_time_local_ns(ev));
	EXPECT_NE(NULL, secmap_module_find_section(secmap_event_module(ev), ".init.text"));
	secmap_event_free(ev);
	ev = next_event_for(_metadata, client, "secmap_test_stamp");
	ASSERT_NE(NULL, ev);
	EXPECT_EQ(SECMAP_CMD_MODULE_LIVE_NTF, secmap_event_type(ev));
	secmap_event_free(ev);
	EXPECT_EQ(0, unload_module("secmap_test_stamp"));
	secmap_client_close(client);

	reload_secmap(_metadata, "");
	client = open_client(_metadata);
	ASSERT_NE(NULL, client);
	ASSERT_EQ(0, secmap_client_info(client, &info));
	EXPECT_EQ(SECMAP_HOOK_TRACEPOINT, info.hook);
	secmap_client_close(client);
}

struct churn {
	atomic_bool stop;
	unsigned long loads, dumps;
};

static void *churn_loads(void *arg)
{
	struct churn *c = arg;

	while (!atomic_load(&c->stop)) {
		int loaded = load_module(LATE_KO);

		/*
		 * Always try: an unload fails with EAGAIN while a starting
		 * secmap pins every module, and must be retried.
		 */
		if (!unload_module("secmap_test_late") && !loaded)
			c->loads++;
	}
	return NULL;
}

static void *churn_dumps(void *arg)
{
	struct churn *c = arg;

	while (!atomic_load(&c->stop)) {
		struct secmap_client *client;
		struct secmap_snapshot *snap;

		/* Fails while secmap is out; that is expected. */
		if (secmap_client_open(&client))
			continue;
		if (!secmap_client_dump(client, &snap)) {
			secmap_snapshot_free(snap);
			c->dumps++;
		}
		secmap_client_close(client);
	}
	return NULL;
}

/* Last: it unloads secmap itself, with a listener attached and work in flight. */
TEST(secmap_unload_and_reload_with_listener)
{
	struct secmap_client *listener = open_client(_metadata);
	struct churn c = { 0 };
	pthread_t loads, dumps;
	int cycle;

	ASSERT_NE(NULL, listener);
	ASSERT_EQ(0, secmap_client_subscribe(listener));
	ASSERT_EQ(0, pthread_create(&loads, NULL, churn_loads, &c));
	ASSERT_EQ(0, pthread_create(&dumps, NULL, churn_dumps, &c));
	for (cycle = 0; cycle < 5; cycle++) {
		struct secmap_snapshot *snap;

		usleep(200 * 1000);
		reload_secmap(_metadata, "");
		snap = dump(_metadata);
		ASSERT_NE(NULL, snap);
		EXPECT_NE(NULL, secmap_snapshot_find(snap, "secmap"));
		secmap_snapshot_free(snap);
	}
	atomic_store(&c.stop, true);
	pthread_join(loads, NULL);
	pthread_join(dumps, NULL);
	secmap_client_close(listener);
	/* Nothing left behind for the next test program. */
	for (cycle = 0; cycle < 100 && unload_module("secmap_test_late") != -ENOENT; cycle++)
		usleep(10 * 1000);
	EXPECT_EQ(-ENOENT, unload_module("secmap_test_late"));
	TH_LOG("reload: 5 cycles, %lu module loads and %lu dumps alongside", c.loads, c.dumps);
	EXPECT_LT(0, c.loads);
}

TEST_HARNESS_MAIN
