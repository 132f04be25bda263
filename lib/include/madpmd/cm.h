/* SPDX-License-Identifier: BSD-3-Clause */
/* madpmd wire codec: communication manager messages (IBA 12.6). */
#ifndef MADPMD_CM_H
#define MADPMD_CM_H

#include <stdint.h>

#include "madpmd/field.h"

#endif /* MADPMD_CM_H */
