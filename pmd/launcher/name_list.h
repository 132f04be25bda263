/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A comma-separated list of node names and shell patterns (--nodes,
 * --switch-clients). A split fat tree's part names thousands of nodes
 * (scripts/gen-fattree --part): plain names are looked up in a sorted
 * table, only patterns are matched one by one.
 */
#ifndef MADPMD_NAME_LIST_H
#define MADPMD_NAME_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct name_list {
	char *buf;		/* the list, split in place */
	char **name;		/* plain names, sorted */
	size_t nname;
	char **pat;		/* with * ? [ or \ */
	size_t npat;
	bool empty_item;	/* ",," or a trailing comma */
};

/* 0, or -1 out of memory */
int name_list_parse(struct name_list *l, const char *list);
/* Whether name is one of l's names or matches one of its patterns */
bool name_list_match(const struct name_list *l, const char *name);
/* The first item of l that names none of the n names (NULL: each names
 * one): a typo is an error, not a daemon that silently does less */
const char *name_list_unmatched(const struct name_list *l,
				const char *const *names, size_t n);
void name_list_free(struct name_list *l);

#endif
