/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the topology (ibsim net-file) parser on the text of a
 * file; a topology it accepts is then looked through as the launcher does.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "madpmd/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpd_topo *t;
	unsigned int node;
	uint8_t port;
	char err[512], *text;

	if (size > 1 << 16)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	/* includes of device and kernel files read forever: not the
	 * parser's business (scripts/fuzz runs in an empty directory) */
	if (strstr(text, "/dev") || strstr(text, "/proc") ||
	    strstr(text, "/sys")) {
		free(text);
		return 0;
	}
	t = mpd_topo_parse_string(text, "fuzz.net", err, sizeof(err));
	if (t) {
		(void)mpd_topo_first_ca(t);
		(void)mpd_topo_sm_port(t, &node, &port);
		(void)mpd_topo_find(t, "hca1");
		mpd_topo_free(t);
	} else if (!memchr(err, '\0', sizeof(err))) {
		abort();
	}
	free(text);
	return 0;
}
