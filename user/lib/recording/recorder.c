// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * What the kernel says (snapshots, events, secmap.ko going away) turned
 * into recording records, in the order a recording holds them. `secmap
 * record` hands them to a writer; a profiling agent hands them to a live
 * resolver. The rules are the resolver's: which map flags a section gets,
 * where a gap begins, when a resync is recorded.
 */
#include <elf.h>

#include "internal.h"

struct secmap_recorder {
	struct secmap_recorder_opts opts;
	/* The last pair of kernel stamps: a gap's start is estimated from it. */
	uint64_t last_local, last_mono;
	uint64_t gap_local, gap_mono;
	uint64_t nr_events, nr_maps, lost;
	uint32_t nr_resyncs;
};

SECMAP_EXPORT int secmap_recorder_new(const struct secmap_recorder_opts *opts,
				      struct secmap_recorder **recp)
{
	SECMAP_OPTS(secmap_recorder_opts, o);
	struct secmap_recorder *r;
	int err;

	if (!recp)
		return libsecmap_err(-EINVAL);
	*recp = NULL;
	if (!opts)
		return libsecmap_err(-EINVAL);
	err = libsecmap_struct_in(opts, offsetofend(struct secmap_recorder_opts, ctx), &o,
				  sizeof(o));
	if (!err && !o.record)
		err = -EINVAL;
	if (err)
		return libsecmap_err(err);
	r = calloc(1, sizeof(*r));
	if (!r)
		return libsecmap_err(-ENOMEM);
	r->opts = o;
	*recp = r;
	return 0;
}

SECMAP_EXPORT void secmap_recorder_free(struct secmap_recorder *r)
{
	free(r);
}

static void saw_stamps(struct secmap_recorder *r, uint64_t local, uint64_t mono)
{
	if (local || mono) {
		r->last_local = local;
		r->last_mono = mono;
	}
}

/*
 * What the resolver and perf's objects need of a section: whether it is
 * init (freed after init) or per-CPU (its "address" is an offset), and
 * whether it is code, as the kernel's region says or, better, the .ko.
 */
static uint32_t map_flags(const struct secmap_section *sec, const struct secmap_ko_section *ks)
{
	uint32_t sflags = secmap_section_flags(sec), flags = 0;
	int region = secmap_section_region(sec);

	if (sflags & SECMAP_SECTION_F_INIT)
		flags |= SECMAP_MAP_F_INIT;
	if (sflags & SECMAP_SECTION_F_FREED)
		flags |= SECMAP_MAP_F_FREED;
	if (region == SECMAP_REGION_TEXT || region == SECMAP_REGION_INIT_TEXT)
		flags |= SECMAP_MAP_F_EXEC;
	if (region == SECMAP_REGION_PERCPU || !strcmp(secmap_section_name(sec), ".data..percpu"))
		flags |= SECMAP_MAP_F_PERCPU;
	if (!ks)
		return flags | SECMAP_MAP_F_NO_KO;
	if (ks->flags & SHF_EXECINSTR)
		flags |= SECMAP_MAP_F_EXEC;
	if (ks->flags & SHF_WRITE)
		flags |= SECMAP_MAP_F_WRITE;
	return flags;
}

/* One SEC_MAP record per section of @mod. */
static int module_maps(struct secmap_recorder *r, const struct secmap_module *mod,
		       uint64_t local, uint64_t mono, uint64_t seq, uint32_t extra)
{
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_SEC_MAP,
		.pid = SECMAP_PID_HOST_KERNEL,
		.time_local_ns = local,
		.time_mono_ns = mono,
		.seq = seq,
		.module = secmap_module_name(mod),
	};
	const struct secmap_ko_table *table = NULL;
	SECMAP_OPTS(secmap_ko_section, ks);
	bool have_ks;
	size_t i;
	int err;

	rec.build_id_len = secmap_module_build_id(mod, &rec.build_id);
	/* Only a table of this very build: one of another says other sizes. */
	if (!r->opts.ko_section && r->opts.ko_tables &&
	    secmap_ko_tables_get(r->opts.ko_tables, mod, &table))
		table = NULL;
	for (i = 0; i < secmap_module_section_count(mod); i++) {
		const struct secmap_section *sec = secmap_module_section(mod, i);

		rec.section = secmap_section_name(sec);
		if (r->opts.ko_section)
			have_ks = !r->opts.ko_section(r->opts.ctx, mod, rec.section, &ks);
		else
			have_ks = table && !secmap_ko_table_section(table, rec.section, &ks);
		rec.start = secmap_section_addr(sec);
		rec.len = have_ks ? ks.size : 0;
		rec.pgoff = have_ks ? ks.offset : 0;
		rec.flags = map_flags(sec, have_ks ? &ks : NULL) | extra;
		err = r->opts.record(r->opts.ctx, &rec);
		if (err)
			return err;
		r->nr_maps++;
	}
	return 0;
}

SECMAP_EXPORT int secmap_recorder_snapshot(struct secmap_recorder *r,
					   const struct secmap_snapshot *snap, uint32_t reason,
					   uint32_t source, uint64_t lost)
{
	uint64_t local, mono;
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_RESYNC,
		.reason = reason,
		.source = source,
		.lost = lost,
	};
	size_t i, n, maps = 0;
	int err;

	if (!r)
		return libsecmap_err(-EINVAL);
	local = snap ? secmap_snapshot_time_local_ns(snap) : 0;
	mono = snap ? secmap_snapshot_time_mono_ns(snap) : 0;
	rec.time_local_ns = local;
	rec.time_mono_ns = mono;
	n = snap ? secmap_snapshot_module_count(snap) : 0;
	for (i = 0; i < n; i++)
		maps += secmap_module_section_count(secmap_snapshot_module(snap, i));
	if (maps > UINT32_MAX || n > UINT32_MAX)
		return libsecmap_err(-E2BIG);
	rec.nr_maps = (uint32_t)maps;
	rec.nr_modules = (uint32_t)n;
	if (reason != SECMAP_RESYNC_START) {
		rec.gap_local_ns = r->gap_local;
		rec.gap_mono_ns = r->gap_mono;
	}
	err = r->opts.record(r->opts.ctx, &rec);
	for (i = 0; !err && i < n; i++)
		err = module_maps(r, secmap_snapshot_module(snap, i), local, mono, 0,
				  SECMAP_MAP_F_SNAPSHOT);
	if (reason != SECMAP_RESYNC_START)
		r->nr_resyncs++;
	saw_stamps(r, local, mono);
	return err ? libsecmap_err(err) : 0;
}

static int unmap(struct secmap_recorder *r, const struct secmap_event *ev, uint32_t flags)
{
	const struct secmap_module *mod = secmap_event_module(ev);
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_UNMAP,
		.pid = SECMAP_PID_HOST_KERNEL,
		.flags = flags,
		.time_local_ns = secmap_event_time_local_ns(ev),
		.time_mono_ns = secmap_event_time_mono_ns(ev),
		.seq = secmap_event_seq(ev),
		.module = secmap_module_name(mod),
	};

	rec.build_id_len = secmap_module_build_id(mod, &rec.build_id);
	return r->opts.record(r->opts.ctx, &rec);
}

SECMAP_EXPORT int secmap_recorder_event(struct secmap_recorder *r, const struct secmap_event *ev)
{
	uint64_t local, mono;
	int err;

	if (!r || !ev)
		return libsecmap_err(-EINVAL);
	local = secmap_event_time_local_ns(ev);
	mono = secmap_event_time_mono_ns(ev);
	r->nr_events++;
	if (secmap_event_type(ev) == SECMAP_EVENT_RESYNC) {
		/* Nothing is known since the last event delivered: the gap starts there. */
		r->gap_local = r->last_local;
		r->gap_mono = r->last_mono;
		r->lost += secmap_event_lost(ev);
		return secmap_recorder_snapshot(r, secmap_event_snapshot(ev), SECMAP_RESYNC_LOST,
						ev->source ? ev->source : SECMAP_SOURCE_NETLINK,
						secmap_event_lost(ev));
	}
	saw_stamps(r, local, mono);
	switch (secmap_event_type(ev)) {
	case SECMAP_CMD_MODULE_NEW_NTF:
		err = module_maps(r, secmap_event_module(ev), local, mono, secmap_event_seq(ev), 0);
		break;
	case SECMAP_CMD_MODULE_LIVE_NTF:
		err = unmap(r, ev, SECMAP_UNMAP_F_INIT);
		break;
	case SECMAP_CMD_MODULE_GONE_NTF:
		err = unmap(r, ev, 0);
		break;
	default:
		err = 0;	/* a newer kernel's event: not a mapping change we know */
	}
	return err ? libsecmap_err(err) : 0;
}

SECMAP_EXPORT void secmap_recorder_gap(struct secmap_recorder *r, uint64_t mono_ns)
{
	if (!r)
		return;
	r->gap_mono = mono_ns;
	r->gap_local = secmap_recorder_local_at(r, mono_ns);
}

SECMAP_EXPORT uint64_t secmap_recorder_local_at(const struct secmap_recorder *r,
						uint64_t mono_ns)
{
	if (!r)
		return 0;
	/* local_clock() cannot be read from user space: the last stamp, moved by as much. */
	return r->last_mono && mono_ns > r->last_mono ?
	       r->last_local + (mono_ns - r->last_mono) : r->last_local;
}

SECMAP_EXPORT int secmap_recorder_stats(const struct secmap_recorder *r,
					struct secmap_recorder_stats *stats)
{
	SECMAP_OPTS(secmap_recorder_stats, s);
	int err;

	if (!r || !stats)
		return libsecmap_err(-EINVAL);
	s.events = r->nr_events;
	s.maps = r->nr_maps;
	s.lost = r->lost;
	s.resyncs = r->nr_resyncs;
	err = libsecmap_struct_out(stats, offsetofend(struct secmap_recorder_stats, resyncs), &s,
				   sizeof(s));
	return err ? libsecmap_err(err) : 0;
}
