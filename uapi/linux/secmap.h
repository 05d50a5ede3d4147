/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * secmap: where the kernel placed each section of each loaded module.
 *
 * Generic netlink family "secmap", shared by kmod/ (the kernel side) and
 * user/ (libsecmap). Documentation/netlink/specs/secmap.yaml describes the
 * same family; a test keeps the two in agreement. Numbers are ABI: append
 * only.
 */
#ifndef _UAPI_LINUX_SECMAP_H
#define _UAPI_LINUX_SECMAP_H

#include <linux/types.h>

#define SECMAP_GENL_NAME	"secmap"
/* 2: MODULE_GET takes SECMAP_A_MODULE_COMPACT (the section table). */
#define SECMAP_GENL_VERSION	2
#define SECMAP_MCGRP_EVENTS	"events"

/**
 * enum secmap_module_state - lifecycle of a module, as secmap reports it
 * @SECMAP_MODULE_STATE_COMING: loaded, its init function has not returned
 * @SECMAP_MODULE_STATE_LIVE: init done; init sections are freed
 * @SECMAP_MODULE_STATE_GOING: being unloaded, or its init failed
 */
enum secmap_module_state {
	SECMAP_MODULE_STATE_COMING = 1,
	SECMAP_MODULE_STATE_LIVE,
	SECMAP_MODULE_STATE_GOING,
};

/**
 * enum secmap_region_type - memory the kernel allocates for a module
 * @SECMAP_REGION_TEXT: executable code
 * @SECMAP_REGION_DATA: writable data
 * @SECMAP_REGION_RODATA: read-only data
 * @SECMAP_REGION_RO_AFTER_INIT: data made read-only once init returns
 * @SECMAP_REGION_INIT_TEXT: init code, freed after init
 * @SECMAP_REGION_INIT_DATA: init data, freed after init
 * @SECMAP_REGION_INIT_RODATA: init read-only data, freed after init
 * @SECMAP_REGION_PERCPU: the module's per-CPU area (.data..percpu), as
 *	the address of CPU 0's copy's template
 *
 * Since 6.4 these are the kernel's mod->mem[] types; before 6.4 secmap
 * splits core_layout and init_layout at their text/ro/ro_after_init sizes.
 */
enum secmap_region_type {
	SECMAP_REGION_TEXT,
	SECMAP_REGION_DATA,
	SECMAP_REGION_RODATA,
	SECMAP_REGION_RO_AFTER_INIT,
	SECMAP_REGION_INIT_TEXT,
	SECMAP_REGION_INIT_DATA,
	SECMAP_REGION_INIT_RODATA,
	SECMAP_REGION_PERCPU,
};

/**
 * enum secmap_section_flags - bits of SECMAP_A_SECTION_FLAGS
 * @SECMAP_SECTION_F_INIT: lives in an init region
 * @SECMAP_SECTION_F_FREED: its memory was released (init sections of a
 *	live module); the address may now belong to something else
 */
enum secmap_section_flags {
	SECMAP_SECTION_F_INIT = 1 << 0,
	SECMAP_SECTION_F_FREED = 1 << 1,
};

/**
 * enum secmap_hook - how secmap learns of a module load
 * @SECMAP_HOOK_TRACEPOINT: the module_load tracepoint: MODULE_NEW arrives
 *	before the module's init function runs
 * @SECMAP_HOOK_NOTIFIER: fallback: the LIVE notifier, so MODULE_NEW arrives
 *	after init and init sections are already freed
 */
enum secmap_hook {
	SECMAP_HOOK_TRACEPOINT = 1,
	SECMAP_HOOK_NOTIFIER,
};

/**
 * enum secmap_cmd - commands and notifications of the secmap family
 * @SECMAP_CMD_MODULE_GET: get one module (SECMAP_A_MODULE_NAME) or, as a
 *	dump, all of them (optionally only SECMAP_A_MODULE_NAME); each reply
 *	carries &enum secmap_a_module attributes
 * @SECMAP_CMD_INFO_GET: family and tracking state, &enum secmap_a_info
 * @SECMAP_CMD_MODULE_NEW_NTF: event: a module was loaded (sections and
 *	regions, state COMING; with the tracepoint hook, before init runs)
 * @SECMAP_CMD_MODULE_LIVE_NTF: event: init completed, init sections are
 *	about to be freed
 * @SECMAP_CMD_MODULE_GONE_NTF: event: the module was unloaded or its init
 *	failed; only name and event attributes
 * @SECMAP_CMD_EVENTS_SUBSCRIBE: let the requesting socket receive the
 *	"events" group (it must also join it); checked like MODULE_GET. The
 *	socket stays subscribed until it is closed.
 * @SECMAP_CMD_EVENTS_REPLAY: dump, checked like MODULE_GET: the events
 *	from SECMAP_A_MODULE_REPLAY_FROM on that the event journal still
 *	holds, oldest first, each as it was sent (its command the
 *	notification's); a listener that lost events gets them again. The
 *	journal keeps the latest events within the secmap module's
 *	journal_kb parameter; a reply that does not start at the sequence
 *	number asked for says the ones before it are gone.
 */
enum secmap_cmd {
	SECMAP_CMD_UNSPEC,
	SECMAP_CMD_MODULE_GET,
	SECMAP_CMD_INFO_GET,
	SECMAP_CMD_MODULE_NEW_NTF,
	SECMAP_CMD_MODULE_LIVE_NTF,
	SECMAP_CMD_MODULE_GONE_NTF,
	SECMAP_CMD_EVENTS_SUBSCRIBE,
	SECMAP_CMD_EVENTS_REPLAY,

	/* add new commands above here */
	__SECMAP_CMD_CNT,
	SECMAP_CMD_MAX = __SECMAP_CMD_CNT - 1
};

/**
 * enum secmap_a_module - attributes of one module (top level of a message)
 * @SECMAP_A_MODULE_PAD: alignment padding for 64-bit attributes
 * @SECMAP_A_MODULE_NAME: string, the module name as the kernel spells it
 * @SECMAP_A_MODULE_SECTION: nested &enum secmap_a_section; repeated, one
 *	per section the kernel shows in /sys/module/NAME/sections, plus
 *	.data..percpu when the module has per-CPU data
 * @SECMAP_A_MODULE_STATE: u32, &enum secmap_module_state
 * @SECMAP_A_MODULE_TAINT: u64, the module's taint bits (kernel TAINT_*
 *	bit numbers, as in /proc/sys/kernel/tainted)
 * @SECMAP_A_MODULE_BUILD_ID: binary, the GNU build-id note's descriptor;
 *	absent if the module has none
 * @SECMAP_A_MODULE_REGION: nested &enum secmap_a_region; repeated
 * @SECMAP_A_MODULE_EVENT: nested &enum secmap_a_event; in notifications
 * @SECMAP_A_MODULE_SECTION_TABLE: binary, an array of &struct
 *	secmap_section_desc: the sections, in place of SECMAP_A_MODULE_SECTION
 *	nests, in replies to a request with SECMAP_A_MODULE_COMPACT
 * @SECMAP_A_MODULE_SECTION_NAMES: binary, the section names the table
 *	points into, each NUL-terminated; with SECMAP_A_MODULE_SECTION_TABLE
 * @SECMAP_A_MODULE_COMPACT: flag, in a MODULE_GET request (family version
 *	2 and later): reply with the section table, not one nest per section
 *	(five attributes each, the larger part of a dump's cost)
 * @SECMAP_A_MODULE_REPLAY_FROM: u64, in an EVENTS_REPLAY request: the
 *	sequence number of the first event wanted
 */
enum secmap_a_module {
	SECMAP_A_MODULE_UNSPEC,
	SECMAP_A_MODULE_NAME,
	SECMAP_A_MODULE_SECTION,
	SECMAP_A_MODULE_PAD,
	SECMAP_A_MODULE_STATE,
	SECMAP_A_MODULE_TAINT,
	SECMAP_A_MODULE_BUILD_ID,
	SECMAP_A_MODULE_REGION,
	SECMAP_A_MODULE_EVENT,
	SECMAP_A_MODULE_SECTION_TABLE,
	SECMAP_A_MODULE_SECTION_NAMES,
	SECMAP_A_MODULE_COMPACT,
	SECMAP_A_MODULE_REPLAY_FROM,

	__SECMAP_A_MODULE_CNT,
	SECMAP_A_MODULE_MAX = __SECMAP_A_MODULE_CNT - 1
};

/**
 * enum secmap_a_section - attributes of one section
 * @SECMAP_A_SECTION_PAD: alignment padding for 64-bit attributes
 * @SECMAP_A_SECTION_NAME: string, ELF section name (".text", ".init.text")
 * @SECMAP_A_SECTION_ADDR: u64, kernel virtual address the section was
 *	loaded at
 * @SECMAP_A_SECTION_REGION: u32, &enum secmap_region_type of the region
 *	holding the section; absent if no region contains it
 * @SECMAP_A_SECTION_FLAGS: u32, &enum secmap_section_flags
 */
enum secmap_a_section {
	SECMAP_A_SECTION_UNSPEC,
	SECMAP_A_SECTION_PAD,
	SECMAP_A_SECTION_NAME,
	SECMAP_A_SECTION_ADDR,
	SECMAP_A_SECTION_REGION,
	SECMAP_A_SECTION_FLAGS,

	__SECMAP_A_SECTION_CNT,
	SECMAP_A_SECTION_MAX = __SECMAP_A_SECTION_CNT - 1
};

/* secmap_section_desc.region of a section in no region */
#define SECMAP_SECTION_NO_REGION	0xffffffffU

/**
 * struct secmap_section_desc - one section in SECMAP_A_MODULE_SECTION_TABLE
 * @addr: kernel virtual address the section was loaded at
 * @name_off: offset of its name in SECMAP_A_MODULE_SECTION_NAMES
 * @flags: &enum secmap_section_flags
 * @region: &enum secmap_region_type of the region holding the section, or
 *	SECMAP_SECTION_NO_REGION
 * @reserved: 0
 *
 * The same facts as one SECMAP_A_MODULE_SECTION nest. The attribute is
 * aligned for @addr, which a reader still copies out rather than
 * dereferences in place.
 */
struct secmap_section_desc {
	__u64 addr;
	__u32 name_off;
	__u32 flags;
	__u32 region;
	__u32 reserved;
};

/**
 * enum secmap_a_region - attributes of one memory region
 * @SECMAP_A_REGION_PAD: alignment padding for 64-bit attributes
 * @SECMAP_A_REGION_TYPE: u32, &enum secmap_region_type
 * @SECMAP_A_REGION_BASE: u64, start address
 * @SECMAP_A_REGION_SIZE: u64, size in bytes
 */
enum secmap_a_region {
	SECMAP_A_REGION_UNSPEC,
	SECMAP_A_REGION_PAD,
	SECMAP_A_REGION_TYPE,
	SECMAP_A_REGION_BASE,
	SECMAP_A_REGION_SIZE,

	__SECMAP_A_REGION_CNT,
	SECMAP_A_REGION_MAX = __SECMAP_A_REGION_CNT - 1
};

/**
 * enum secmap_a_event - attributes of a notification
 * @SECMAP_A_EVENT_PAD: alignment padding for 64-bit attributes
 * @SECMAP_A_EVENT_SEQ: u64, per-family sequence number starting at 1; a
 *	gap means the listener lost events
 * @SECMAP_A_EVENT_TIME_LOCAL_NS: u64, local_clock() when the event
 *	happened (perf's default clock); for MODULE_NEW with the tracepoint
 *	hook, when the module became COMING, before its parameters were parsed
 * @SECMAP_A_EVENT_TIME_MONO_NS: u64, CLOCK_MONOTONIC at the same moment
 */
enum secmap_a_event {
	SECMAP_A_EVENT_UNSPEC,
	SECMAP_A_EVENT_PAD,
	SECMAP_A_EVENT_SEQ,
	SECMAP_A_EVENT_TIME_LOCAL_NS,
	SECMAP_A_EVENT_TIME_MONO_NS,

	__SECMAP_A_EVENT_CNT,
	SECMAP_A_EVENT_MAX = __SECMAP_A_EVENT_CNT - 1
};

/**
 * enum secmap_a_info - attributes of the SECMAP_CMD_INFO_GET reply
 * @SECMAP_A_INFO_PAD: alignment padding for 64-bit attributes
 * @SECMAP_A_INFO_VERSION: u32, SECMAP_GENL_VERSION of the running module
 * @SECMAP_A_INFO_GENERATION: u64, bumped on every load, init completion
 *	and unload; multi-part dumps compare it to flag NLM_F_DUMP_INTR
 * @SECMAP_A_INFO_RELEASE: string, the kernel release (uname -r)
 * @SECMAP_A_INFO_HOOK: u32, &enum secmap_hook
 * @SECMAP_A_INFO_EVENT_SEQ: u64, sequence number of the last event (0:
 *	none yet), read together with the generation: a snapshot taken while
 *	the generation stays at this reply's includes every event up to it
 * @SECMAP_A_INFO_TIME_LOCAL_NS: u64, local_clock() (perf's default clock)
 *	when the reply was made, after the generation was read
 * @SECMAP_A_INFO_TIME_MONO_NS: u64, CLOCK_MONOTONIC read with it
 */
enum secmap_a_info {
	SECMAP_A_INFO_UNSPEC,
	SECMAP_A_INFO_PAD,
	SECMAP_A_INFO_VERSION,
	SECMAP_A_INFO_GENERATION,
	SECMAP_A_INFO_RELEASE,
	SECMAP_A_INFO_HOOK,
	SECMAP_A_INFO_EVENT_SEQ,
	SECMAP_A_INFO_TIME_LOCAL_NS,
	SECMAP_A_INFO_TIME_MONO_NS,

	__SECMAP_A_INFO_CNT,
	SECMAP_A_INFO_MAX = __SECMAP_A_INFO_CNT - 1
};

#endif /* _UAPI_LINUX_SECMAP_H */
