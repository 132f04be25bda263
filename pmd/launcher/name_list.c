/* SPDX-License-Identifier: BSD-3-Clause */
/* Node name lists: plain names by search, patterns by fnmatch(3). */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "name_list.h"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
name_list_parse(struct name_list *l, const char *list)
{
	size_t n = 1;
	char *s, *e;
	const char *c;

	memset(l, 0, sizeof(*l));
	for (c = list; *c; c++)
		n += *c == ',';
	l->buf = strdup(list);
	l->name = calloc(n, sizeof(*l->name));
	l->pat = calloc(n, sizeof(*l->pat));
	if (!l->buf || !l->name || !l->pat) {
		name_list_free(l);
		return -1;
	}
	for (s = l->buf; s; s = e) {
		e = strchr(s, ',');
		if (e)
			*e++ = '\0';
		if (!*s)
			l->empty_item = true;
		else if (strpbrk(s, "*?[\\"))
			l->pat[l->npat++] = s;
		else
			l->name[l->nname++] = s;
	}
	qsort(l->name, l->nname, sizeof(*l->name), cmp_str);
	return 0;
}

bool
name_list_match(const struct name_list *l, const char *name)
{
	size_t i;

	if (bsearch(&name, l->name, l->nname, sizeof(*l->name), cmp_str))
		return true;
	for (i = 0; i < l->npat; i++)
		if (fnmatch(l->pat[i], name, 0) == 0)
			return true;
	return false;
}

const char *
name_list_unmatched(const struct name_list *l, const char *const *names,
		    size_t n)
{
	const char **sorted = malloc((n ? n : 1) * sizeof(*sorted));
	const char *miss = NULL;
	size_t i, j;

	if (!sorted)
		return l->nname ? l->name[0] : l->npat ? l->pat[0] : NULL;
	memcpy(sorted, names, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_str);
	for (i = 0; !miss && i < l->nname; i++)
		if (!bsearch(&l->name[i], sorted, n, sizeof(*sorted), cmp_str))
			miss = l->name[i];
	for (i = 0; !miss && i < l->npat; i++) {
		for (j = 0; j < n; j++)
			if (fnmatch(l->pat[i], names[j], 0) == 0)
				break;
		if (j == n)
			miss = l->pat[i];
	}
	free(sorted);
	return miss;
}

void
name_list_free(struct name_list *l)
{
	free(l->buf);
	free(l->name);
	free(l->pat);
	memset(l, 0, sizeof(*l));
}
