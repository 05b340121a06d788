; RUN: echo "semicolons" | FileCheck %s
; CHECK: semicolons
