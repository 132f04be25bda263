/* SPDX-License-Identifier: BSD-3-Clause */
/* madpmd wire codec: SA records (IBA 15.2.5). */
#ifndef MADPMD_SA_H
#define MADPMD_SA_H

#include <stdint.h>

#include "madpmd/field.h"

#endif /* MADPMD_SA_H */
