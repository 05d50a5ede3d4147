// SPDX-License-Identifier: GPL-2.0
/*
 * secmap record: write where every module section is mapped, and when, to
 * a recording while COMMAND (typically perf record) runs; see
 * uapi/linux/secmap_record.h for the format.
 *
 * Order matters for "no gap, no overlap": subscribe first, then dump. The
 * library makes the dump continue exactly where the events start, and
 * stamps it with the kernel's clocks.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "json_out.h"
#include "record.h"
#include "record_command.h"
#include "secmap_cli.h"

static void now_mono(uint64_t *ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	*ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The recorder's records go to the file. */
static int add_record(void *ctx, const struct secmap_record *rec)
{
	struct recorder *r = ctx;

	return secmap_writer_add(r->w, rec);
}

/* Once per build: why its .ko gives nothing, when it was found. */
static void ko_looked_up(void *ctx, const struct secmap_module *mod,
			 const struct secmap_ko_table *table, int err)
{
	(void)ctx;
	if (!table || !err)
		return;
	if (err == -ESTALE)
		fprintf(stderr, "Warning: %s: %s has another build-id than the loaded module; "
			"not used\n", secmap_module_name(mod), secmap_ko_table_path(table));
	else
		fprintf(stderr, "Warning: %s: cannot read %s; no sizes or offsets for it\n",
			secmap_module_name(mod), secmap_ko_table_path(table));
}

/* The tables over --ko-path and the places a .ko is looked for, with the shared cache. */
static int new_ko_tables(struct recorder *r)
{
	SECMAP_OPTS(secmap_ko_tables_opts, opts, .search = &r->search,
		    .looked_up = ko_looked_up);
	char *cache_dir = NULL;
	int err;

	r->search.sz = sizeof(r->search);
	r->search.paths = r->paths;
	/* No $XDG_CACHE_HOME nor $HOME: no cache, every build from its .ko. */
	if (secmap_ko_cache_dir(&cache_dir) == -ENOMEM)
		return -ENOMEM;
	opts.cache_dir = cache_dir;
	err = secmap_ko_tables_new(&opts, &r->kos);
	free(cache_dir);
	return err;
}

static int recorder_stats(const struct recorder *r, struct secmap_recorder_stats *stats)
{
	*stats = (struct secmap_recorder_stats){ .sz = sizeof(*stats) };
	return secmap_recorder_stats(r->rec, stats);
}

static uint64_t events_seen(const struct recorder *r)
{
	struct secmap_recorder_stats stats;

	return recorder_stats(r, &stats) ? 0 : stats.events;
}

/* The KERNEL record: the kernel's identity now; its symbols come at the end. */
static int write_kernel(struct recorder *r, uint64_t local, uint64_t mono)
{
	struct secmap_kernel_info *ki = &r->kernel;
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_KERNEL,
		.pid = SECMAP_PID_HOST_KERNEL,
		.time_local_ns = local,
		.time_mono_ns = mono,
	};
	int err;

	ki->sz = sizeof(*ki);
	err = secmap_kernel_info_read(NULL, SECMAP_KERNEL_INFO_NO_SYMBOLS, ki);
	if (err)
		return err;
	r->have_kernel = true;
	rec.release = ki->release;
	rec.ref_name = ki->have_ref_addr ? ki->ref_name : "_text";
	rec.ref_addr = ki->ref_addr;
	rec.flags = ki->have_ref_addr ? SECMAP_KERNEL_F_REF_ADDR : 0;
	rec.build_id = ki->build_id;
	rec.build_id_len = ki->build_id_len;
	if (!r->no_kallsyms && !ki->have_ref_addr)
		fprintf(stderr, "Warning: kernel symbol addresses are hidden; "
			"the recording has no kallsyms\n");
	return secmap_writer_add(r->w, &rec);
}

/*
 * The core kernel's symbols, written last: by then a perf record run as
 * COMMAND has copied /proc/kallsyms into its build-id cache, and reading
 * that copy spares the kernel formatting 150 000 lines a second time,
 * which was most of a recorder's CPU next to perf. A copy from another
 * boot is not taken; without one, /proc/kallsyms is read as before.
 * (The core's symbols do not change while the kernel runs.)
 */
static int write_kallsyms(struct recorder *r)
{
	struct secmap_kernel_info live = { .sz = sizeof(struct secmap_kernel_info) }, *ki = &r->kernel;
	struct secmap_record rec = {
		.sz = sizeof(struct secmap_record),
		.type = SECMAP_REC_KALLSYMS,
		.pid = SECMAP_PID_HOST_KERNEL,
	};
	size_t size = 0, core_len;
	char *cached = cached_kallsyms_map(ki->build_id, ki->build_id_len, &size);
	int err = 0;

	if (cached && !secmap_kernel_info_match_kallsyms(ki, cached, size, &core_len)) {
		r->kallsyms_from = "build-id cache";
		rec.text = cached;
		rec.text_len = core_len;
	} else {
		err = secmap_kernel_info_read(NULL, 0, &live);
		/* The same boot, or its addresses would not fit the maps recorded. */
		if (!err && live.kallsyms_len && live.ref_addr == ki->ref_addr) {
			r->kallsyms_from = "/proc/kallsyms";
			rec.text = live.kallsyms;
			rec.text_len = live.kallsyms_len;
		}
	}
	if (!err && rec.text_len)
		err = secmap_writer_add(r->w, &rec);
	else if (!err)
		fprintf(stderr, "Warning: kernel symbol addresses are hidden; "
			"the recording has no kallsyms\n");
	if (cached)
		munmap(cached, size);
	secmap_kernel_info_release(&live);
	return err;
}

/* Record @ev, and free it. */
static int record_event(struct recorder *r, struct secmap_event *ev)
{
	int ret;

	if (secmap_event_type(ev) == SECMAP_EVENT_RESYNC)
		fprintf(stderr, "Warning: %" PRIu64 " module events lost; recorded a resync\n",
			secmap_event_lost(ev));
	ret = secmap_recorder_event(r->rec, ev);
	secmap_event_free(ev);
	return ret;
}

/*
 * Subscribe, then dump: the dump and the events meet exactly. Opens a
 * client unless one is open already (the first time, to find out whether
 * secmap.ko is there at all).
 */
static int connect_netlink(struct recorder *r, uint32_t reason)
{
	struct secmap_snapshot *snap = NULL;
	int err = 0;

	if (!r->client)
		err = secmap_client_open(&r->client);
	if (err)
		return err;
	err = secmap_client_subscribe(r->client);
	if (!err)
		err = secmap_client_dump(r->client, &snap);
	if (!err && reason == SECMAP_RESYNC_START)
		err = write_kernel(r, secmap_snapshot_time_local_ns(snap),
				   secmap_snapshot_time_mono_ns(snap));
	if (!err)
		err = secmap_recorder_snapshot(r->rec, snap, reason, SECMAP_SOURCE_NETLINK, 0);
	secmap_snapshot_free(snap);
	if (err) {
		secmap_client_close(r->client);
		r->client = NULL;
	}
	return err;
}

/* Every event queued now, without waiting; 0 or -errno of writing. */
static int drain_events(struct recorder *r)
{
	struct secmap_event *ev;
	int ret;

	if (!r->client)
		return 0;
	for (;;) {
		ret = secmap_client_next_event(r->client, &ev, 0);
		if (ret == -EAGAIN)
			return 0;
		if (ret == -EPROTO) {
			/* The gap it leaves in the sequence makes the next event a resync. */
			fprintf(stderr, "Warning: skipped a malformed event\n");
			continue;
		}
		if (ret == -EBUSY) {
			/* Loss pending: the library retries at the next call. */
			r->resync_pending = true;
			return 0;
		}
		r->resync_pending = false;
		if (ret)
			return ret;
		ret = record_event(r, ev);
		if (ret)
			return ret;
	}
}

/*
 * The uevent backend's events: read as they come, their times taken then.
 * A module whose sections cannot be read (that uevent is consumed) is said
 * and skipped; the socket failing ends the recording.
 */
static int drain_uevents(struct recorder *r)
{
	struct secmap_event *ev;
	int ret;

	while (r->uevents) {
		ret = secmap_uevent_watch_next(r->uevents, &ev);
		if (ret == -EAGAIN)
			return 0;
		if (ret == -EACCES || ret == -EPERM || ret == -EPROTO || ret == -ENAMETOOLONG ||
		    ret == -EIO) {
			fprintf(stderr, "Warning: a module load not recorded: %s\n",
				secmap_strerror(ret));
			continue;
		}
		if (ret)
			return ret;
		ret = record_event(r, ev);
		if (ret)
			return ret;
	}
	return 0;
}

/* secmap.ko went away: what follows is a gap until it comes back. */
static void start_gap(struct recorder *r)
{
	uint64_t mono;

	if (r->in_gap)
		return;
	now_mono(&mono);
	secmap_recorder_gap(r->rec, mono);
	r->in_gap = true;
	r->replayed += secmap_client_nr_replayed(r->client);
	secmap_client_close(r->client);
	r->client = NULL;
	fprintf(stderr, "Warning: secmap module unloaded; recording resumes when it is back\n");
}

static void try_reconnect(struct recorder *r)
{
	int err;

	if (!r->in_gap)
		return;
	err = connect_netlink(r, SECMAP_RESYNC_RELOAD);
	if (err)
		return;		/* not back yet, or still starting: the next tick retries */
	r->in_gap = false;
	fprintf(stderr, "Warning: secmap module is back; recorded the gap and a resync\n");
}

static int watch_family(struct recorder *r)
{
	int ret;

	for (;;) {
		ret = secmap_family_watch_next(r->watch);
		if (ret == -EAGAIN)
			return 0;
		if (ret == -ENOBUFS) {
			/* Changes were missed: a client that still answers tells. */
			SECMAP_OPTS(secmap_info, info);

			if (r->client && secmap_client_info(r->client, &info))
				start_gap(r);
			continue;
		}
		if (ret < 0)
			return ret;
		if (ret == 0 && r->client) {
			/* Events sent before the family went are still queued. */
			drain_events(r);
			start_gap(r);
		} else if (ret == 1) {
			start_gap(r);
			try_reconnect(r);
		}
	}
}

/*
 * Write out at most every half second: a write per event, on a machine
 * busy loading modules, was most of a recorder's cost. With the poll's
 * half-second tick, a killed recorder loses less than the last second.
 */
static int flush_due(struct recorder *r)
{
	uint64_t now;

	now_mono(&now);
	if (now - r->flushed_ns < 500000000ULL)
		return 0;
	r->flushed_ns = now;
	return secmap_writer_flush(r->w);
}

/*
 * After it hands out events, the client's socket is left alone this long:
 * next to perf a module load is two events some milliseconds apart, and a
 * wakeup costs a recorder more than the events it reads. Measured under
 * TCG over 200 load/unload cycles, recorders taking turns in one VM: with
 * kallsyms, 176-188 ms of CPU with 40 ms between reads, 123-130 ms with
 * 100 ms (without kallsyms, reading each event as it came: 97-132 ms;
 * 40 ms: 60-73). The events wait in the socket (1 MiB asked; 100 ms holds
 * the events of some thousand loads a second), their times are the
 * kernel's, and the journal gives back any an overrun drops. Signals are
 * still served at once.
 */
#define RECORD_COALESCE_NS (100 * 1000000ULL)

/* Each wakeup serves only the descriptors that are ready. */
static int record_loop(struct recorder *r, int sfd, struct record_run *run)
{
	uint64_t quiet_until = 0, now, events;
	struct pollfd pfd[4];
	int n, ret, watch_at, client_at, uevent_at, timeout;

	while (!run->stop && !(run->child > 0 && run->child_done)) {
		n = 0;
		watch_at = client_at = uevent_at = -1;
		/* A tick every half second: flush, and retry a reconnection. */
		timeout = 500;
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (r->watch) {
			watch_at = n;
			pfd[n++] = (struct pollfd){ .fd = secmap_family_watch_fd(r->watch),
						    .events = POLLIN };
		}
		/* Not coalesced: a uevent's time is when it is read. */
		if (r->uevents) {
			uevent_at = n;
			pfd[n++] = (struct pollfd){ .fd = secmap_uevent_watch_fd(r->uevents),
						    .events = POLLIN };
		}
		now_mono(&now);
		if (r->client && now >= quiet_until) {
			client_at = n;
			pfd[n++] = (struct pollfd){ .fd = secmap_client_fd(r->client),
						    .events = POLLIN };
		} else if (r->client) {
			timeout = (int)((quiet_until - now) / 1000000) + 1;
		}
		ret = poll(pfd, (nfds_t)n, timeout);
		if (ret < 0 && errno != EINTR) {
			p_err("record: poll: %s", strerror(errno));
			return -errno;
		}
		ret = 0;
		if (pfd[0].revents)
			ret = handle_signals(sfd, run);
		if (!ret && watch_at >= 0 && pfd[watch_at].revents)
			ret = watch_family(r);
		if (!ret && uevent_at >= 0 && pfd[uevent_at].revents)
			ret = drain_uevents(r);
		/* POLLERR too: an overrun receive buffer is how losses show. */
		events = events_seen(r);
		if (!ret && ((client_at >= 0 && pfd[client_at].revents) || r->resync_pending))
			ret = drain_events(r);
		if (events_seen(r) != events) {
			now_mono(&now);
			quiet_until = now + RECORD_COALESCE_NS;
		}
		if (!ret && r->in_gap)
			try_reconnect(r);
		if (!ret)
			ret = flush_due(r);
		if (ret) {
			p_err("record: %s: %s", r->path, secmap_strerror(ret));
			return ret;
		}
	}
	/* What happened up to COMMAND's end belongs in the recording. */
	ret = drain_uevents(r);
	return ret ? ret : drain_events(r);
}

static int finish(struct recorder *r)
{
	struct secmap_recorder_stats stats;
	SECMAP_OPTS(secmap_record, rec, .type = SECMAP_REC_FINISHED);
	SECMAP_OPTS(secmap_info, info);
	uint64_t mono;
	int err;

	err = recorder_stats(r, &stats);
	if (err)
		return err;
	rec.nr_resyncs = stats.resyncs;
	rec.lost = stats.lost;

	if (r->have_kernel && !r->no_kallsyms && r->kernel.have_ref_addr) {
		err = write_kallsyms(r);
		if (err)
			return err;
	}
	/* The kernel's clocks if it answers; else estimated as for a gap. */
	if (r->client && !secmap_client_info(r->client, &info) && info.time_local_ns) {
		rec.time_local_ns = info.time_local_ns;
		rec.time_mono_ns = info.time_mono_ns;
	} else {
		now_mono(&mono);
		rec.time_mono_ns = mono;
		rec.time_local_ns = secmap_recorder_local_at(r->rec, mono);
	}
	return secmap_writer_add(r->w, &rec);
}

static void summary(const struct recorder *r, uint64_t bytes)
{
	uint64_t replayed = r->replayed + secmap_client_nr_replayed(r->client);
	struct secmap_recorder_stats st;
	struct json_out *o;

	if (recorder_stats(r, &st))
		return;

	/* -q silences the human summary; asked-for JSON is still printed. */
	if (r->quiet && !json_output)
		return;
	if (json_output) {
		/* CPU time and memory: ours against COMMAND's (perf's), for make bench. */
		o = json_out_stream(stdout, pretty_output);
		if (o) {
			json_out_object_begin(o, NULL);
			json_out_str(o, "output", r->path);
			json_out_u64(o, "bytes", bytes);
			json_out_u64(o, "maps", st.maps);
			json_out_u64(o, "events", st.events);
			json_out_u64(o, "lost", st.lost);
			json_out_u64(o, "replayed", replayed);
			json_out_u64(o, "resyncs", st.resyncs);
			json_out_str(o, "source", r->uevents ? "uevent" : r->client || r->in_gap ?
				     "netlink" : "sysfs");
			if (r->uevents)
				json_out_u64(o, "missed", secmap_uevent_watch_missed(r->uevents));
			if (r->kallsyms_from)
				json_out_str(o, "kallsyms", r->kallsyms_from);
			else
				json_out_null(o, "kallsyms");
			json_out_u64(o, "cpu_us", rusage_cpu_us(RUSAGE_SELF));
			json_out_u64(o, "command_cpu_us", rusage_cpu_us(RUSAGE_CHILDREN));
			json_out_u64(o, "max_rss_kb", rusage_max_rss_kb(RUSAGE_SELF));
			json_out_u64(o, "command_max_rss_kb", rusage_max_rss_kb(RUSAGE_CHILDREN));
			json_out_object_end(o);
		}
		json_out_finish(o);
		return;
	}
	fprintf(stderr, "[ secmap record: %" PRIu64 " section maps, %" PRIu64 " events (%" PRIu64
		" replayed after a loss), %" PRIu64 " lost (%u resyncs), %" PRIu64
		" bytes written to %s ]\n", st.maps, st.events, replayed, st.lost,
		st.resyncs, bytes, r->path);
}

/*
 * The uevent backend: subscribed first, then sysfs, so that no load falls
 * between the two. -ENOENT (and nothing written): no module support;
 * another -errno from the socket: the caller records the snapshot alone.
 */
static int start_uevents(struct recorder *r, int fd)
{
	struct secmap_snapshot *snap = NULL;
	int load_trace, err;

	err = secmap_uevent_watch_open(NULL, &r->uevents);
	if (err)
		return err == -ENOENT ? -EAFNOSUPPORT : err;
	err = secmap_uevent_watch_snapshot(r->uevents, &snap);
	if (err) {
		secmap_uevent_watch_close(r->uevents);
		r->uevents = NULL;
		return err;
	}
	/* The family watch would bring secmap.ko's events in beside these. */
	secmap_family_watch_close(r->watch);
	r->watch = NULL;
	if (!secmap_uevent_watch_exact_times(r->uevents))
		fprintf(stderr, "Warning: cannot read perf's clock (no perf events here): module "
			"load and unload times are CLOCK_MONOTONIC's, perf's samples' are not\n");
	load_trace = secmap_uevent_watch_load_times(r->uevents);
	if (load_trace < 0 && secmap_uevent_watch_exact_times(r->uevents))
		fprintf(stderr, "Warning: cannot read perf's module_load tracepoint (%s): loads are "
			"known once their init has finished\n",
			secmap_strerror(load_trace));
	err = secmap_writer_new(fd, SECMAP_FILE_F_UEVENT |
				(load_trace == 1 ? SECMAP_FILE_F_LOAD_TRACE : 0), &r->w);
	if (!err)
		err = write_kernel(r, secmap_snapshot_time_local_ns(snap),
				   secmap_snapshot_time_mono_ns(snap));
	if (!err)
		err = secmap_recorder_snapshot(r->rec, snap, SECMAP_RESYNC_START,
					       SECMAP_SOURCE_SYSFS, 0);
	secmap_snapshot_free(snap);
	return err;
}

/*
 * The writer, and the first snapshot: from secmap.ko, else (or with
 * --source uevent) from sysfs and the kernel's uevents after it, else
 * from sysfs alone.
 */
static int record_start(struct recorder *r, int fd)
{
	struct secmap_snapshot *snap = NULL;
	const char *why;
	int err;

	if (r->backend != RECORD_BACKEND_UEVENT) {
		err = secmap_client_open(&r->client);
		if (err != -ENOENT || r->backend == RECORD_BACKEND_NETLINK) {
			if (!err)
				err = secmap_writer_new(fd, 0, &r->w);
			return err ? err : connect_netlink(r, SECMAP_RESYNC_START);
		}
		why = module_refused_reason();
		fprintf(stderr, "Warning: secmap module not loaded%s%s%s: module loads come from "
			"uevents\n", why ? " (" : "", why ? why : "", why ? ")" : "");
	}
	err = start_uevents(r, fd);
	if (err != -ENOENT && err != -EAFNOSUPPORT && err != -EPERM && err != -EACCES)
		return err;
	if (err == -EAFNOSUPPORT || err == -EPERM || err == -EACCES)
		fprintf(stderr, "Warning: cannot listen to uevents (%s): recording the sysfs "
			"snapshot only (no loads or unloads while recording)\n", strerror(-err));
	/* What sysfs shows now, and nothing after. */
	err = secmap_writer_new(fd, SECMAP_FILE_F_SYSFS_ONLY, &r->w);
	if (!err)
		err = secmap_snapshot_from_sysfs(NULL, &snap);
	/* A kernel without module support: its identity and symbols are all there is. */
	if (err == -ENOENT && access("/proc/modules", F_OK) && errno == ENOENT) {
		fprintf(stderr, "Warning: this kernel has no module support (no /proc/modules): "
			"recording the kernel's identity and symbols only\n");
		err = 0;
	}
	if (!err)
		err = write_kernel(r, 0, 0);
	if (!err)
		err = secmap_recorder_snapshot(r->rec, snap, SECMAP_RESYNC_START,
					       SECMAP_SOURCE_SYSFS, 0);
	secmap_snapshot_free(snap);
	return err;
}

static int new_recorder(struct recorder *r)
{
	SECMAP_OPTS(secmap_recorder_opts, opts,
		.record = add_record,
		.ctx = r,
		.ko_tables = r->no_ko ? NULL : r->kos,
	);

	return secmap_recorder_new(&opts, &r->rec);
}

static void record_cleanup(struct recorder *r)
{
	secmap_recorder_free(r->rec);
	secmap_kernel_info_release(&r->kernel);
	secmap_ko_tables_free(r->kos);
	secmap_family_watch_close(r->watch);
	secmap_uevent_watch_close(r->uevents);
	secmap_client_close(r->client);
}

/*
 * The recording starts unnamed beside @path (where its symlinks lead),
 * renamed to it once its first snapshot is written: a recorder that
 * cannot start leaves nothing behind, and an existing file is kept as
 * PATH.old, as perf record keeps perf.data.old. A device or FIFO there
 * is refused, never replaced. -1 to go on, else the exit code.
 */
static int record_open(struct recorder *r, struct secmap_output **output)
{
	int err;

	err = secmap_output_open(r->path, output);
	if (err)
		return output_error("record: ", r->path, err);
	err = record_start(r, secmap_output_fd(*output));
	if (err) {
		if (err == -EPERM || err == -EACCES)
			p_err("record: reading module addresses and events needs CAP_SYSLOG "
			      "(and kptr_restrict < 2)");
		else
			p_err("record: %s", client_strerror(err));
		secmap_writer_free(r->w);
		r->w = NULL;
		return exit_code_from_err(err);
	}
	err = secmap_writer_flush(r->w);
	if (!err)
		err = secmap_output_commit(*output, SECMAP_OUTPUT_KEEP_OLD | SECMAP_OUTPUT_KEEP_OPEN);
	if (err) {
		secmap_writer_free(r->w);
		r->w = NULL;
		return output_error("record: ", r->path, err);
	}
	return -1;
}

/* --inject, once COMMAND is done: @ret, COMMAND's status, or what went wrong. */
static int record_inject(const struct recorder *r, const struct timespec *started, int ret)
{
	/* The same path and messages as `secmap inject -i PERF_DATA -m FILE`. */
	struct inject_args ia = {
		.input = r->inject, .map = r->path, .paths = r->paths, .maps = true,
		.quiet = r->quiet, .no_summary = true,
	};
	int err;

	if (!written_since(r->inject, started)) {
		/* Another run's file: the recording would go where it does not belong. */
		p_err("record: --inject: %s was not written while recording: name the file "
		      "COMMAND writes with --inject=FILE", r->inject);
		return ret ? ret : SECMAP_EXIT_BAD_INPUT;
	}
	err = inject_recording(&ia);
	if (err)
		return ret ? ret : err;
	if (!r->quiet && !json_output)
		fprintf(stderr, "[ secmap record: embedded into %s ]\n", r->inject);
	return ret;
}

int do_record(int argc, char **argv)
{
	struct recorder *r;
	struct record_run run = { .child = -1 };
	struct secmap_output *output = NULL;
	struct timespec started;
	uint64_t bytes;
	sigset_t mask, oldmask;
	int ret, err, sfd = -1;

	r = calloc(1, sizeof(*r));
	if (!r) {
		p_err("out of memory");
		return SECMAP_EXIT_FAILURE;
	}
	r->path = "secmap.data";
	ret = record_options(argc, argv, r);
	if (ret >= 0)
		goto out;
	if (new_ko_tables(r) || new_recorder(r)) {
		p_err("out of memory");
		ret = SECMAP_EXIT_FAILURE;
		goto out;
	}
	/* Signals are read from a descriptor, in the loop: block them first. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		p_err("record: signalfd: %s", strerror(errno));
		ret = SECMAP_EXIT_FAILURE;
		goto out_mask;
	}
	/* Not fatal: only a reload of secmap.ko would go unnoticed without it. */
	if (secmap_family_watch_open(&r->watch))
		fprintf(stderr, "Warning: cannot watch for secmap module reloads: %s\n",
			strerror(errno));
	ret = record_open(r, &output);
	if (ret >= 0)
		goto out_mask;
	/* The clock file times come from: a file written from now on is not older. */
	clock_gettime(CLOCK_REALTIME_COARSE, &started);
	err = 0;
	if (optind < argc) {
		run.child = start_command(argv + optind, &oldmask);
		if (run.child < 0)
			err = -errno;
	}
	if (!err)
		err = record_loop(r, sfd, &run);
	if (!err)
		err = finish(r);
	bytes = secmap_writer_bytes(r->w);
	ret = secmap_writer_free(r->w);
	r->w = NULL;
	err = err ? err : ret;
	ret = secmap_output_close(output);
	output = NULL;
	err = err ? err : ret;
	if (err) {
		p_err("record: %s: %s", r->path, secmap_strerror(err));
		ret = SECMAP_EXIT_FAILURE;
		/* Still wait for COMMAND: its status is what a caller expects. */
		if (run.child > 0 && !run.child_done && waitpid(run.child, &run.status, 0) > 0)
			run.child_done = true;
		goto out_mask;
	}
	summary(r, bytes);
	ret = command_status(&run);
	if (r->inject)
		ret = record_inject(r, &started, ret);
out_mask:
	if (sfd >= 0)
		close(sfd);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
out:
	record_cleanup(r);
	secmap_output_close(output);
	free(r->paths);
	free(r);
	return ret;
}
