/* SPDX-License-Identifier: BSD-3-Clause */
/* A port's services for its clients (services.c) */
#ifndef NET_HCA_SERVICES_H
#define NET_HCA_SERVICES_H

#include "../chan/chan.h"

/* The doorbells into *db, then the channel cfg describes into *chan (NULL
 * without a run directory; cfg's doorbell fields filled here): 0, or an
 * errno with nothing left open */
int hca_services_start(struct hca_doorbells *db, struct hca_chan **chan,
		       struct hca_chan_cfg *cfg);
void hca_services_stop(struct hca_doorbells *db, struct hca_chan **chan);

#endif
