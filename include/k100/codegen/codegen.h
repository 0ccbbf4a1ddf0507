// k100lc codegen: the whole authoring layer in one include (kernel, registers
// and signature, the building blocks), for kernel generators.
#pragma once

#include "k100/codegen/address.h"
#include "k100/codegen/conversion.h"
#include "k100/codegen/division.h"
#include "k100/codegen/exponential.h"
#include "k100/codegen/kernel.h"
#include "k100/codegen/loops.h"
#include "k100/codegen/reduction.h"
#include "k100/codegen/signature.h"
