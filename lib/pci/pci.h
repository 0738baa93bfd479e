/* SPDX-License-Identifier: MIT */
/*
 * The pci layer's interface: the PCI tree from sysfs (pcitree.h).
 * Code outside lib/pci/ includes this header only (lib/README.md).
 */
#ifndef RD_PCI_LAYER_H
#define RD_PCI_LAYER_H

#include "pcitree.h"

#endif
