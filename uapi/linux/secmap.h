/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * secmap: where the kernel placed each section of each loaded module.
 *
 * Generic netlink family "secmap", shared by kmod/ (the kernel side) and
 * user/ (libsecmap). Attribute numbers are ABI: only append.
 */
#ifndef _UAPI_LINUX_SECMAP_H
#define _UAPI_LINUX_SECMAP_H

#define SECMAP_GENL_NAME	"secmap"
#define SECMAP_GENL_VERSION	1

/**
 * enum secmap_cmd - commands of the secmap family
 * @SECMAP_CMD_MODULE_GET: request; as a dump, one reply message per loaded
 *	module, each carrying the SECMAP_A_MODULE_* attributes.
 */
enum secmap_cmd {
	SECMAP_CMD_UNSPEC,
	SECMAP_CMD_MODULE_GET,

	/* add new commands above here */
	__SECMAP_CMD_CNT,
	SECMAP_CMD_MAX = __SECMAP_CMD_CNT - 1
};

/**
 * enum secmap_a_module - attributes of one module (top level of a reply)
 * @SECMAP_A_MODULE_NAME: string, the module name as the kernel spells it
 * @SECMAP_A_MODULE_SECTION: nested &enum secmap_a_section; repeated, one
 *	per section the kernel shows in /sys/module/NAME/sections
 */
enum secmap_a_module {
	SECMAP_A_MODULE_UNSPEC,
	SECMAP_A_MODULE_NAME,
	SECMAP_A_MODULE_SECTION,

	__SECMAP_A_MODULE_CNT,
	SECMAP_A_MODULE_MAX = __SECMAP_A_MODULE_CNT - 1
};

/**
 * enum secmap_a_section - attributes of one section
 * @SECMAP_A_SECTION_PAD: alignment padding for 64-bit attributes
 * @SECMAP_A_SECTION_NAME: string, ELF section name (".text", ".init.text")
 * @SECMAP_A_SECTION_ADDR: u64, kernel virtual address the section was
 *	loaded at
 */
enum secmap_a_section {
	SECMAP_A_SECTION_UNSPEC,
	SECMAP_A_SECTION_PAD,
	SECMAP_A_SECTION_NAME,
	SECMAP_A_SECTION_ADDR,

	__SECMAP_A_SECTION_CNT,
	SECMAP_A_SECTION_MAX = __SECMAP_A_SECTION_CNT - 1
};

#endif /* _UAPI_LINUX_SECMAP_H */
