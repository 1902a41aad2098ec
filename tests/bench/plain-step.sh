#!/bin/bash
# The kind of "git bisect run" script a kernel developer writes by hand:
# build in a fresh O= dir without ccache, boot, one wall-clock tbench run,
# fixed threshold.  Usage (from a kernel git tree):
#   git bisect run plain-step.sh FRAGMENT INITRD THRESHOLD_MBPS
set -u
frag=$1 initrd=$2 thr=$3
out=$(mktemp -d /tmp/plain-out.XXXXXX)
trap 'rm -rf "$out"' EXIT
make O="$out" ARCH=x86_64 tinyconfig >/dev/null 2>&1 || exit 125
scripts/kconfig/merge_config.sh -m -O "$out" "$out/.config" "$frag" >/dev/null 2>&1 || exit 125
make O="$out" ARCH=x86_64 olddefconfig >/dev/null 2>&1 || exit 125
make O="$out" ARCH=x86_64 -j"$(nproc)" vmlinux >/dev/null 2>&1 || exit 125
timeout 300 qemu-system-x86_64 -nodefaults -display none -no-reboot -serial file:"$out/con" \
  -kernel "$out/vmlinux" -initrd "$initrd" -m 512 -smp 2 -accel tcg \
  -append "console=ttyS0 quiet panic=-1 tb.clients=2 tb.seconds=3" >/dev/null 2>&1
mb=$(sed -n 's/.*mbps=\([0-9.]*\).*/\1/p' "$out/con" | tail -1)
[ -n "$mb" ] || exit 125
echo "plain-step: $(git rev-parse --short HEAD) $mb MB/s (threshold $thr)" >&2
# bad (exit 1) when below the threshold
awk -v m="$mb" -v t="$thr" 'BEGIN { exit (m < t) ? 1 : 0 }'
