// SPDX-License-Identifier: GPL-2.0
/* secmap monitor: print module load, init-done and unload events as they happen. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "dump.h"
#include "json_out.h"
#include "secmap_cli.h"

static void monitor_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s monitor [-j|--json] [-p|--pretty] [--count N] [--timeout-ms T]\n"
		"\n"
		"Print one line per module event as it arrives: new (loaded, with its\n"
		"sections), live (init done, init sections freed) and gone (unloaded).\n"
		"When events were missed, secmap re-reads every module and prints one\n"
		"\"resync\" line instead, with the count of events it replaces.\n"
		"Needs CAP_SYSLOG. Stops on SIGINT/SIGTERM.\n"
		"\n"
		"Options:\n"
		"  -j, --json          one JSON object per line\n"
		"  -p, --pretty        same as --json: events stay one per line\n"
		"      --count N       exit after N events\n"
		"      --timeout-ms T  exit after T milliseconds without an event\n"
		"  -h, --help          show this help\n",
		bin_name);
}

static const char *event_name(uint32_t type)
{
	switch (type) {
	case SECMAP_CMD_MODULE_NEW_NTF:
		return "new";
	case SECMAP_CMD_MODULE_LIVE_NTF:
		return "live";
	case SECMAP_CMD_MODULE_GONE_NTF:
		return "gone";
	case SECMAP_EVENT_RESYNC:
		return "resync";
	default:
		return "unknown";
	}
}

/* LIVE and GONE carry only the name and state; so does a resync's module list. */
static void module_brief_out(struct json_out *o, const char *key,
			     const struct secmap_module *mod)
{
	json_out_object_begin(o, key);
	json_out_str(o, "name", secmap_module_name(mod));
	json_out_str(o, "state", secmap_module_state_name(secmap_module_state(mod)));
	json_out_object_end(o);
}

/*
 * A snapshot that replaces events: @lost of them after a loss (@ev set), or
 * an unknown number across a reload of secmap.ko (@ev NULL).
 */
static int print_resync_snapshot(FILE *f, const struct secmap_event *ev,
				 const struct secmap_snapshot *snap)
{
	size_t i, n = secmap_snapshot_module_count(snap);
	struct json_out *o;

	errno = 0;
	if (!json_output) {
		if (ev)
			fprintf(f, "!!! lost %" PRIu64 " event%s; resynced at seq %" PRIu64
				": %zu module%s loaded\n", secmap_event_lost(ev),
				secmap_event_lost(ev) == 1 ? "" : "s", secmap_event_seq(ev), n,
				n == 1 ? "" : "s");
		else
			fprintf(f, "!!! secmap module reloaded; events in between unknown; "
				"resynced: %zu module%s loaded\n", n, n == 1 ? "" : "s");
		return flush_output(f);
	}
	o = json_out_stream(f, false);
	if (o) {
		json_out_object_begin(o, NULL);
		json_out_str(o, "event", "resync");
		json_out_str(o, "reason", ev ? "lost" : "reload");
		if (ev) {
			json_out_u64(o, "seq", secmap_event_seq(ev));
			json_out_u64(o, "lost", secmap_event_lost(ev));
		} else {
			json_out_null(o, "seq");
			json_out_null(o, "lost");
		}
		json_out_array_begin(o, "modules");
		for (i = 0; i < n; i++)
			module_brief_out(o, NULL, secmap_snapshot_module(snap, i));
		json_out_array_end(o);
		json_out_object_end(o);
	}
	return json_out_finish(o);
}

static int print_resync(FILE *f, const struct secmap_event *ev)
{
	return print_resync_snapshot(f, ev, secmap_event_snapshot(ev));
}

static int print_event_json(FILE *f, const struct secmap_event *ev)
{
	const struct secmap_module *mod = secmap_event_module(ev);
	struct json_out *o = json_out_stream(f, false);

	if (o) {
		json_out_object_begin(o, NULL);
		json_out_str(o, "event", event_name(secmap_event_type(ev)));
		json_out_u64(o, "seq", secmap_event_seq(ev));
		json_out_u64(o, "time_local_ns", secmap_event_time_local_ns(ev));
		json_out_u64(o, "time_mono_ns", secmap_event_time_mono_ns(ev));
		if (secmap_event_type(ev) == SECMAP_CMD_MODULE_NEW_NTF)
			dump_module_out(o, "module", mod, NULL);
		else
			module_brief_out(o, "module", mod);
		json_out_object_end(o);
	}
	return json_out_finish(o);
}

int monitor_print_event(FILE *f, const struct secmap_event *ev)
{
	const struct secmap_module *mod = secmap_event_module(ev);
	size_t nsec;

	if (secmap_event_type(ev) == SECMAP_EVENT_RESYNC)
		return print_resync(f, ev);
	if (json_output)
		return print_event_json(f, ev);

	errno = 0;
	fprintf(f, "[%" PRIu64 " %" PRIu64 "] seq %" PRIu64 " %s %s",
		secmap_event_time_local_ns(ev), secmap_event_time_mono_ns(ev),
		secmap_event_seq(ev), event_name(secmap_event_type(ev)),
		text_safe(secmap_module_name(mod)));
	if (secmap_event_type(ev) == SECMAP_CMD_MODULE_NEW_NTF) {
		nsec = secmap_module_section_count(mod);
		fprintf(f, " (%zu section%s)", nsec, nsec == 1 ? "" : "s");
	}
	fputc('\n', f);
	return flush_output(f);
}

static int parse_num(const char *opt, const char *arg, unsigned long max, unsigned long *val)
{
	char *end;

	errno = 0;
	if (*arg < '0' || *arg > '9' || (*val = strtoul(arg, &end, 10), *end) ||
	    errno || *val > max) {
		p_err("monitor: invalid %s '%s'", opt, arg);
		return -EINVAL;
	}
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct monitor_opts {
	unsigned long count;		/* 0: no limit */
	long timeout_ms;		/* -1: none */
};

/* Until a signal, the count or the idle timeout; a SECMAP_EXIT_* code. */
struct monitor {
	const struct monitor_opts *o;
	struct secmap_client *client;	/* NULL while secmap.ko is away */
	struct secmap_family_watch *watch;	/* NULL if it could not be opened */
	unsigned long seen;
	int64_t last;
};

/* Subscribe (again) on a new client; a SECMAP_EXIT_* code, the error reported. */
static int subscribe(struct monitor *m)
{
	int ret, err;

	ret = open_client(&m->client);
	if (ret)
		return ret;
	err = secmap_client_subscribe(m->client);
	if (!err)
		return SECMAP_EXIT_OK;
	if (err == -EPERM || err == -EACCES)
		p_err("subscribing to secmap events needs CAP_SYSLOG (and kptr_restrict < 2)");
	else if (err == -EOPNOTSUPP)
		p_err("the loaded secmap module does not send events");
	else
		p_err("cannot subscribe to events: %s", client_strerror(err));
	secmap_client_close(m->client);
	m->client = NULL;
	return exit_code_from_err(err);
}

/* Every event queued now; 1 when --count is reached, 0, or a SECMAP_EXIT_* code. */
static int drain(struct monitor *m)
{
	struct secmap_event *ev;
	int ret;

	while (m->client) {
		ret = secmap_client_next_event(m->client, &ev, 0);
		if (ret == -EAGAIN)
			return 0;
		if (ret == -EPROTO) {
			/* The sequence gap it leaves makes the next event a resync. */
			fprintf(stderr, "Warning: skipped a malformed event\n");
			continue;
		} else if (ret == -EBUSY) {
			/* The library keeps the loss pending and retries. */
			fprintf(stderr, "Warning: events were lost and modules keep changing; "
				"resyncing at the next event\n");
			continue;
		} else if (ret) {
			p_err("monitor: %s", client_strerror(ret));
			return exit_code_from_err(ret);
		}
		ret = monitor_print_event(stdout, ev);
		secmap_event_free(ev);
		m->last = now_ms();
		m->seen++;
		if (ret) {
			fprintf(stderr, "Error: cannot write output: %s\n", strerror(-ret));
			return SECMAP_EXIT_FAILURE;
		}
		if (m->o->count && m->seen >= m->o->count)
			return 1;
	}
	return 0;
}

/*
 * secmap.ko went away or came back. A subscription ends with the family's
 * registration: on a new one, subscribe again and print the modules loaded
 * now as a resync, since what happened in between is unknown.
 */
static int family_changed(struct monitor *m)
{
	struct secmap_snapshot *snap = NULL;
	struct secmap_client *probe;
	SECMAP_OPTS(secmap_info, info);
	int ret, err;

	for (;;) {
		ret = secmap_family_watch_next(m->watch);
		if (ret == -EAGAIN)
			return 0;
		if (ret == -ENOBUFS) {
			/* Notifications missed: the client still answers, or it is back, or not. */
			if (m->client && !secmap_client_info(m->client, &info))
				continue;
			if (secmap_client_open(&probe))
				ret = 0;
			else
				ret = 1;
			secmap_client_close(probe);
		}
		if (ret == 0) {
			/* Gone: what is queued first. */
			err = drain(m);
			if (err)
				return err;
			if (m->client)
				fprintf(stderr, "Warning: secmap module unloaded; monitoring "
					"resumes when it is back\n");
			secmap_client_close(m->client);
			m->client = NULL;
			continue;
		}
		if (ret < 0) {
			p_err("monitor: watching for secmap module reloads: %s",
			      secmap_strerror(ret));
			return SECMAP_EXIT_FAILURE;
		}
		/* Registered: a new instance, even if we never saw the old one go. */
		err = drain(m);
		if (err)
			return err;
		secmap_client_close(m->client);
		m->client = NULL;
		err = subscribe(m);
		if (err)
			return err;
		err = secmap_client_dump(m->client, &snap);
		if (err) {
			p_err("monitor: dump after the reload: %s", client_strerror(err));
			return exit_code_from_err(err);
		}
		err = print_resync_snapshot(stdout, NULL, snap);
		secmap_snapshot_free(snap);
		if (err) {
			fprintf(stderr, "Error: cannot write output: %s\n", strerror(-err));
			return SECMAP_EXIT_FAILURE;
		}
		fprintf(stderr, "Warning: secmap module is back; monitoring again\n");
		m->last = now_ms();
		m->seen++;
		if (m->o->count && m->seen >= m->o->count)
			return 1;
	}
}

static int monitor_loop(struct monitor *m, int sfd)
{
	struct pollfd pfd[3];
	int ret, wait, n;

	m->last = now_ms();
	for (;;) {
		wait = -1;
		if (m->o->timeout_ms >= 0) {
			int64_t left = m->o->timeout_ms - (now_ms() - m->last);

			wait = left > 0 ? (left > INT_MAX ? INT_MAX : (int)left) : 0;
		}
		n = 0;
		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		if (m->watch)
			pfd[n++] = (struct pollfd){ .fd = secmap_family_watch_fd(m->watch),
						    .events = POLLIN };
		if (m->client)
			pfd[n++] = (struct pollfd){ .fd = secmap_client_fd(m->client),
						    .events = POLLIN };
		ret = poll(pfd, n, wait);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			p_err("poll: %s", strerror(errno));
			return SECMAP_EXIT_FAILURE;
		}
		if (ret == 0 && now_ms() - m->last >= m->o->timeout_ms)
			return SECMAP_EXIT_OK;
		if (pfd[0].revents)
			return SECMAP_EXIT_OK;
		/* Events first: those sent before the family went are still queued. */
		ret = drain(m);
		if (!ret && m->watch && pfd[1].revents)
			ret = family_changed(m);
		if (ret)
			return ret == 1 ? SECMAP_EXIT_OK : ret;
	}
}

int do_monitor(int argc, char **argv)
{
	enum { OPT_COUNT = 256, OPT_TIMEOUT };
	static const struct option opts[] = {
		OUTPUT_LONG_OPTIONS,
		{ "count",	required_argument, NULL, OPT_COUNT },
		{ "timeout-ms",	required_argument, NULL, OPT_TIMEOUT },
		{ 0 }
	};
	struct monitor_opts o = { .count = 0, .timeout_ms = -1 };
	struct monitor m = { .o = &o };
	sigset_t mask;
	unsigned long val;
	int opt, err, ret, sfd;

	optind = 0;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+" OUTPUT_SHORT_OPTIONS, opts, NULL)) != -1) {
		if (handle_output_option(opt))
			continue;
		switch (opt) {
		case 'h':
			monitor_usage(stdout);
			return SECMAP_EXIT_OK;
		case OPT_COUNT:
			if (parse_num("--count", optarg, ULONG_MAX, &val))
				return SECMAP_EXIT_USAGE;
			if (!val) {
				p_err("monitor: --count must be at least 1");
				return SECMAP_EXIT_USAGE;
			}
			o.count = val;
			break;
		case OPT_TIMEOUT:
			if (parse_num("--timeout-ms", optarg, INT_MAX, &val))
				return SECMAP_EXIT_USAGE;
			o.timeout_ms = (long)val;
			break;
		default:
			if (optopt != OPT_COUNT && optopt != OPT_TIMEOUT)
				return usage_error("monitor", argv, monitor_usage);
			p_err("monitor: option '%s' needs a value", argv[optind - 1]);
			if (!json_output)
				monitor_usage(stderr);
			return SECMAP_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return unexpected_argument("monitor", argv[optind], monitor_usage);

	ret = subscribe(&m);
	if (ret)
		return ret;
	/* Not fatal: only a reload of secmap.ko would go unnoticed without it. */
	err = secmap_family_watch_open(&m.watch);
	if (err)
		fprintf(stderr, "Warning: cannot watch for secmap module reloads: %s\n",
			secmap_strerror(err));

	/* Signals arrive through a descriptor polled with the socket: no race. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		p_err("sigprocmask: %s", strerror(errno));
		secmap_client_close(m.client);
		secmap_family_watch_close(m.watch);
		return SECMAP_EXIT_FAILURE;
	}
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		p_err("signalfd: %s", strerror(errno));
		ret = SECMAP_EXIT_FAILURE;
	} else {
		ret = monitor_loop(&m, sfd);
		close(sfd);
	}
	secmap_client_close(m.client);
	secmap_family_watch_close(m.watch);
	/*
	 * SIGINT and SIGTERM stay blocked: unblocking would deliver the one that
	 * ended the loop (still pending, as nobody read the signalfd) and kill
	 * us instead of exiting 0. main() returns right after this anyway.
	 */
	return ret;
}
