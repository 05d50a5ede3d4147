/* SPDX-License-Identifier: GPL-2.0 */
/* Declarations shared by the secmap tool's sources and its unit tests. */
#ifndef SECMAP_CLI_H
#define SECMAP_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "exit_codes.h"
#include "secmap.h"
#include "text.h"

#define SECMAP_TOOL_VERSION "0.1.0"

extern const char *bin_name;
extern bool json_output;
extern bool pretty_output;

struct cmd {
	const char *name;
	int (*func)(int argc, char **argv);
	const char *summary;
};

/* Report an error: "Error: ..." on stderr, or {"error": "..."} on stdout with -j. */
void p_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The output options every subcommand accepts, for its getopt_long table. */
#define OUTPUT_LONG_OPTIONS \
	{ "json",	no_argument, NULL, 'j' }, \
	{ "pretty",	no_argument, NULL, 'p' }, \
	{ "help",	no_argument, NULL, 'h' }
#define OUTPUT_SHORT_OPTIONS "jph"
/* Apply -j or -p; false if @opt is neither. */
bool handle_output_option(int opt);
/* Report getopt's unknown option (or a bad argument) for @cmd; SECMAP_EXIT_USAGE. */
int usage_error(const char *cmd, char **argv, void (*usage)(FILE *f));
int unexpected_argument(const char *cmd, const char *arg, void (*usage)(FILE *f));
/*
 * secmap_strerror() for an error of the netlink client: there, and only
 * there, -ENOENT means the secmap family is not registered.
 */
const char *client_strerror(int err);
/*
 * Why the kernel would refuse secmap.ko, if it says: lockdown or
 * module.sig_enforce (signed modules only), modules_disabled; else NULL.
 */
const char *module_refused_reason(void);
/* Open a client; 0, or the exit code after reporting why it failed. */
int open_client(struct secmap_client **client);
/* Map a negative errno from libsecmap to one of the SECMAP_EXIT_* codes. */
int exit_code_from_err(int err);
/*
 * CPU time (user and system, in µs) and peak resident memory (KiB) of
 * @who (RUSAGE_SELF, or RUSAGE_CHILDREN: those waited for); 0 if unknown.
 */
uint64_t rusage_cpu_us(int who);
uint64_t rusage_max_rss_kb(int who);
/*
 * Flush what was printed to @f: 0, or -errno of the first failed write
 * (callers set errno to 0 before printing), or -EIO.
 */
int flush_output(FILE *f);

/* "secmap info": @info as text, or as JSON with json_output; 0 or -errno. */
int info_print(FILE *f, const struct secmap_info *info);

/*
 * "secmap monitor": one line per event (a resync says how many events it
 * replaces), honouring json_output; 0 or -errno from writing.
 */
int monitor_print_event(FILE *f, const struct secmap_event *event);

int do_dump(int argc, char **argv);
int do_info(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_record(int argc, char **argv);
int do_show(int argc, char **argv);
int do_archive(int argc, char **argv);
int do_inject(int argc, char **argv);
int do_resolve(int argc, char **argv);
int do_report(int argc, char **argv);
int do_script(int argc, char **argv);

/*
 * "secmap inject": perf-native module maps (unless !@maps) and the
 * recording at @map (a secmap.data, or a perf.data holding one; NULL:
 * secmap.data, else the one @input holds) into the perf.data @input,
 * written to @output (NULL: replace @input); or, with @strip, the file
 * perf wrote. Errors are reported with p_err(), one line naming the file;
 * returns a SECMAP_EXIT_* code.
 */
struct inject_args {
	const char *input, *map, *output;
	const char *buildid_dir;	/* NULL: perf's default */
	const char **paths;		/* --ko-path, NULL-terminated */
	bool maps;			/* perf-native module maps */
	bool force;
	bool strip;
	bool quiet;			/* no warnings */
	bool no_summary;		/* nothing on success: the caller says it */
};
int inject_recording(const struct inject_args *args);

/*
 * The resolver's options, shared by resolve, report and script:
 * -i PERF_DATA, -m SECMAP_DATA, --clock, --ko-path, --force, --no-ko.
 */
struct resolver_args {
	const char *input;		/* -i */
	const char *map;		/* -m */
	const char **paths;		/* --ko-path, NULL-terminated */
	size_t nr_paths;
	enum secmap_clock clock;
	bool clock_set;
	bool force;
	bool no_ko;
	bool quiet;			/* no warnings about missing .ko files */
};
enum {
	RESOLVER_OPT_CLOCK = 0x200,
	RESOLVER_OPT_KO_PATH,
	RESOLVER_OPT_FORCE,
	RESOLVER_OPT_NO_KO,
};
#define RESOLVER_LONG_OPTIONS \
	{ "input",	required_argument, NULL, 'i' }, \
	{ "map",	required_argument, NULL, 'm' }, \
	{ "clock",	required_argument, NULL, RESOLVER_OPT_CLOCK }, \
	{ "ko-path",	required_argument, NULL, RESOLVER_OPT_KO_PATH }, \
	{ "force",	no_argument,	   NULL, RESOLVER_OPT_FORCE }, \
	{ "no-ko",	no_argument,	   NULL, RESOLVER_OPT_NO_KO }
#define RESOLVER_SHORT_OPTIONS "i:m:"
/* 0: taken; -1: not a resolver option; else an exit code (error reported). */
int resolver_option(struct resolver_args *args, int opt, const char *arg);
/* getopt's '?' for a command with resolver options; SECMAP_EXIT_USAGE. */
int resolver_option_error(const char *cmd, char **argv, void (*usage)(FILE *f));
/*
 * Load the recording (-m, else -i, else perf.data holding one, else
 * secmap.data) and the .ko files; warn about modules without one. *@res
 * is NULL on failure. Returns an exit code: SECMAP_EXIT_KO_MISMATCH when
 * a .ko of another build-id was refused (*@res still usable).
 */
int resolver_open(const struct resolver_args *args, struct secmap_resolver **res);
/*
 * Say which modules of @res have no usable .ko and what @consequence that
 * has for their samples. SECMAP_EXIT_KO_MISMATCH if a .ko of another
 * build-id was refused, else SECMAP_EXIT_OK.
 */
int resolver_warn_modules(const struct resolver_args *args, const struct secmap_resolver *res,
			  const char *consequence);
void resolver_args_free(struct resolver_args *args);

/* secmap_build_id_str() of @id, malloc()ed; NULL when out of memory or too long. */
char *build_id_text(const uint8_t *id, size_t len);
/* Lowercase hex of @mod's build-id, malloc()ed; NULL if it has none (or no memory). */
char *module_build_id_text(const struct secmap_module *mod);

/*
 * perf's build-id cache copy of the kallsyms of the kernel of build-id @id,
 * $HOME/.debug/[kernel.kallsyms]/BUILD-ID/kallsyms, mapped read-only
 * (mapped, not read: under emulation the page faults of a 7 MiB buffer were
 * half the cost) if it is a regular file of a sane size; release with
 * munmap(text, *size). NULL if there is none.
 */
char *cached_kallsyms_map(const uint8_t *id, size_t id_len, size_t *size);

/* Append @path to the NULL-terminated list *@list of *@nr (--ko-path): 0 or -ENOMEM. */
int path_list_add(const char ***list, size_t *nr, const char *path);
/*
 * Why output file @path (secmap_output_open() or a commit) failed with
 * @err, in one line prefixed by @cmd ("record: ", or ""); the exit code.
 */
int output_error(const char *cmd, const char *path, int err);
/*
 * The file a `perf record` in command line @argv writes: 0 and *@path;
 * -EPIPE if it writes to a pipe; -ENOENT if @argv runs no perf record.
 */
int perf_record_output(char *const *argv, const char **path);

/* A one-line reason why a recording (secmap.data or perf.data) cannot be read. */
const char *recording_strerror(int err);
/* The exit code for it: SECMAP_EXIT_BAD_INPUT for a file of the wrong kind or corrupt. */
int recording_exit_code(int err);

#endif /* SECMAP_CLI_H */
