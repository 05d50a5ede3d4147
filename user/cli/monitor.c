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

#include "dump_ko.h"
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

/* Events were lost: the modules as they are now replace them. */
static int print_resync(FILE *f, const struct secmap_event *ev)
{
	const struct secmap_snapshot *snap = secmap_event_snapshot(ev);
	size_t i, n = secmap_snapshot_module_count(snap);
	struct json_out *o;

	errno = 0;
	if (!json_output) {
		fprintf(f, "!!! lost %" PRIu64 " event%s; resynced at seq %" PRIu64
			": %zu module%s loaded\n", secmap_event_lost(ev),
			secmap_event_lost(ev) == 1 ? "" : "s", secmap_event_seq(ev), n,
			n == 1 ? "" : "s");
		return flush_output(f);
	}
	o = json_out_stream(f);
	if (o) {
		json_out_object_begin(o, NULL);
		json_out_str(o, "event", "resync");
		json_out_u64(o, "seq", secmap_event_seq(ev));
		json_out_u64(o, "lost", secmap_event_lost(ev));
		json_out_array_begin(o, "modules");
		for (i = 0; i < n; i++)
			module_brief_out(o, NULL, secmap_snapshot_module(snap, i));
		json_out_array_end(o);
		json_out_object_end(o);
	}
	return json_out_finish(o, NULL);
}

static int print_event_json(FILE *f, const struct secmap_event *ev)
{
	const struct secmap_module *mod = secmap_event_module(ev);
	struct json_out *o = json_out_stream(f);

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
	return json_out_finish(o, NULL);
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
static int monitor_loop(struct secmap_client *client, int sfd, const struct monitor_opts *o)
{
	struct secmap_event *ev;
	unsigned long seen = 0;
	int64_t last = now_ms();
	struct pollfd pfd[2];
	int ret, wait;

	pfd[0].fd = sfd;
	pfd[0].events = POLLIN;
	pfd[1].fd = secmap_client_fd(client);
	pfd[1].events = POLLIN;
	for (;;) {
		wait = -1;
		if (o->timeout_ms >= 0) {
			int64_t left = o->timeout_ms - (now_ms() - last);

			wait = left > 0 ? (left > INT_MAX ? INT_MAX : (int)left) : 0;
		}
		ret = poll(pfd, 2, wait);
		if (ret < 0) {
			if (errno == EINTR)
				continue;
			p_err("poll: %s", strerror(errno));
			return SECMAP_EXIT_FAILURE;
		}
		if (ret == 0 && now_ms() - last >= o->timeout_ms)
			return SECMAP_EXIT_OK;
		if (pfd[0].revents)
			return SECMAP_EXIT_OK;
		if (!pfd[1].revents)
			continue;
		/* Everything queued, without waiting. */
		for (;;) {
			ret = secmap_client_next_event(client, &ev, 0);
			if (ret == -EAGAIN)
				break;
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
			} else {
				ret = monitor_print_event(stdout, ev);
				secmap_event_free(ev);
				last = now_ms();
				seen++;
			}
			if (ret) {
				fprintf(stderr, "Error: cannot write output: %s\n", strerror(-ret));
				return SECMAP_EXIT_FAILURE;
			}
			if (o->count && seen >= o->count)
				return SECMAP_EXIT_OK;
		}
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
	struct secmap_client *client = NULL;
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

	ret = open_client(&client);
	if (ret)
		return ret;
	err = secmap_client_subscribe(client);
	if (err) {
		if (err == -EPERM || err == -EACCES)
			p_err("subscribing to secmap events needs CAP_SYSLOG (and kptr_restrict < 2)");
		else if (err == -EOPNOTSUPP)
			p_err("the loaded secmap module does not send events");
		else
			p_err("cannot subscribe to events: %s", client_strerror(err));
		secmap_client_close(client);
		return exit_code_from_err(err);
	}

	/* Signals arrive through a descriptor polled with the socket: no race. */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0) {
		p_err("sigprocmask: %s", strerror(errno));
		secmap_client_close(client);
		return SECMAP_EXIT_FAILURE;
	}
	sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		p_err("signalfd: %s", strerror(errno));
		ret = SECMAP_EXIT_FAILURE;
	} else {
		ret = monitor_loop(client, sfd, &o);
		close(sfd);
	}
	secmap_client_close(client);
	/*
	 * SIGINT and SIGTERM stay blocked: unblocking would deliver the one that
	 * ended the loop (still pending, as nobody read the signalfd) and kill
	 * us instead of exiting 0. main() returns right after this anyway.
	 */
	return ret;
}
