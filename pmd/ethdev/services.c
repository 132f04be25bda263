/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a port gives its clients, the one place it is assembled for a CA
 * port (rte_eth_hca.c's probe) and a switch's port 0 (hca_mgmt.c) alike:
 * the doorbells the lcore sleeps on, then the client channel over the
 * port's MAD layer (and, for a CA, its QP layer and CM) that cfg names.
 */
#include "services.h"

int
hca_services_start(struct hca_doorbells *db, struct hca_chan **chan,
		   struct hca_chan_cfg *cfg)
{
	int rc;

	*chan = NULL;
	rc = hca_doorbells_open(db);
	if (rc)
		return rc;
	cfg->doorbell = db->fd;
	cfg->rung = &db->rung;
	cfg->doorbells = db->set;
	rc = hca_chan_start(chan, cfg);
	if (rc)
		hca_doorbells_close(db);
	return rc;
}

void
hca_services_stop(struct hca_doorbells *db, struct hca_chan **chan)
{
	hca_chan_stop(*chan);
	*chan = NULL;
	hca_doorbells_close(db);
}
