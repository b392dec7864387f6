#!/usr/bin/env bash
# One call of a release's measurement on one machine: the steps of PLAN (scripts/release_plans.txt)
# from a bundle built at the release's tag (scripts/bundle.sh; a build folder works too), within a
# time budget, resuming where the previous call of the same plan stopped.
#
#   scripts/release.sh PLAN [BUNDLE_DIR]          (PLAN: gpu, host, scale, dev; default bundle)
#   env: BUDGET_S   seconds this call may spend (default 560; 0: no limit). A unit (one input, size
#                   and element type of a step) is started only when its estimate fits in what is
#                   left (a frameworks step's unit: all its sizes); it runs under a timeout of what
#                   is left, and one stopped there is run again whole by the next call (its rows so
#                   far kept apart, as *.part.csv)
#        RESUME     the previous call's archive (release-PREFIX-PLAN.tgz; default: $OUT's own, where a
#                   call on this machine left one): its rows, timings, logs and launch-shape cache
#                   are taken over, and its units done are not run again
#        STEPS      the plan's steps to run, comma-separated (default: all of them, in order)
#        PREFIX     the machine's name in the results' file names (default: the GPU's model, h200 or
#                   h100, with xN for N GPUs; dev-vm on a machine without an NVIDIA GPU)
#        FORCE=1    run a build whose version is not a release tag (results-*, no commits after it)
#        OUT        where the archive goes (default ./release-out, which git ignores)
#        RELEASE_PLANS  another plans file (default scripts/release_plans.txt)
#
# The rows of every call carry the bundle's version (`accumulate_bench --version`); a resumed archive
# of another version is refused. The estimate of a unit is its case count (--benchmark_list_tests)
# times a cost per case: a least-squares fit of seconds per case against input bytes over the
# step's units done (the harness's own progress estimate, docs/cli.md), or the plan's cost column
# until there are two, or where the fit would extrapolate past 4x the largest size it saw.
#
# What comes back is one archive, $OUT/release-PREFIX-PLAN.tgz, the state of the release on this
# machine so far: version.txt, plan.txt (the plan's lines), done.tsv (step, unit, cases, bytes per
# case, seconds, exit status, call), rows/STEP/UNIT.csv (a yardstick step: rows/STEP/all/),
# lists/STEP.txt (the cases each step has here), logs/call-K/ (this call's console and run logs,
# and this script and the plans as it ran them) and launch-cache/. scripts/release_collect.py
# places its rows under results/.
# Exit status: 0 every selected unit is done; 3 units are left for the next call; 2 refused.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname "$here")
plans=${RELEASE_PLANS:-$here/release_plans.txt}
usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
(($# >= 1 && $# <= 2)) || usage
plan=$1
[[ -d ${2:-bundle} ]] || { echo "release.sh: no bundle folder '${2:-bundle}'" >&2; exit 2; }
bundle=$(cd "${2:-bundle}" && pwd)
budget=${BUDGET_S:-560}
out=${OUT:-release-out}
started=$SECONDS
pack_s=15  # kept back from the budget for packing the archive

bench=$bundle/accumulate_bench
[[ -x $bench ]] || { echo "release.sh: $bench is missing" >&2; exit 2; }
yardstick_bench=$bundle/cpu_yardstick
[[ -x $yardstick_bench ]] || yardstick_bench=$bundle/tools/cpu_yardstick
# shellcheck source=scripts/machine_libs.sh
source "$here/machine_libs.sh"  # a bundle leaves MPI and NCCL to the machine
# NVIDIA's Vulkan driver file, where the GPU machines' loader does not look (vulkan/README.md).
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [[ -z ${VK_DRIVER_FILES:-} && -f $nvidia_icd ]]; then export VK_DRIVER_FILES=$nvidia_icd VK_ICD_FILENAMES=$nvidia_icd; fi
# NVIDIA's OpenCL driver where no ICD file names it (opencl/README.md): the loader reads the vendors
# of OCL_ICD_VENDORS instead, a folder of this call's own, nothing written under /etc.
if [[ -z ${OCL_ICD_VENDORS:-} && ! -e /etc/OpenCL/vendors/nvidia.icd ]] && ldconfig -p 2>/dev/null | grep -q 'libnvidia-opencl\.so\.1'; then
    vendors=$(mktemp -d)
    trap 'rm -rf "$vendors"' EXIT
    echo libnvidia-opencl.so.1 > "$vendors/nvidia.icd"
    export OCL_ICD_VENDORS=$vendors
fi

# The plan's lines, and the steps selected.
mapfile -t lines < <(awk -v p="$plan" '!/^[[:space:]]*(#|$)/ && $1 == p' "$plans")
((${#lines[@]})) ||
    { echo "release.sh: no plan '$plan' in $plans (plans: $(awk '!/^#/ && NF {print $1}' "$plans" | sort -u | paste -sd' '))" >&2; exit 2; }
for line in "${lines[@]}"; do
    read -r _ step _ tool _ _ _ _ cost _ <<<"$line"
    [[ $tool =~ ^(bench|mpi:[1-9][0-9]*|frameworks|yardstick)$ && $cost =~ ^[0-9.]+(\+[0-9.]+)?$ ]] ||
        { echo "release.sh: $plans: step $step: tool '$tool' or cost '$cost' is not one the header names" >&2; exit 2; }
done

version=$("$bench" --version)
echo "release.sh: version $version, plan $plan, bundle $bundle"
if ! [[ $version =~ ^results-[A-Za-z0-9._-]+$ && ! $version =~ -[0-9]+-g[0-9a-f]+(-dirty)?$ && $version != *-dirty ]]; then
    [[ ${FORCE:-} == 1 ]] ||
        { echo "release.sh: version '$version' is not a release tag (results-*): build at the tag, or FORCE=1" >&2; exit 2; }
    echo "release.sh: FORCE=1: measuring version '$version', which is not a release tag"
fi

if [[ -n ${STEPS:-} ]]; then
    IFS=, read -ra wanted <<<"$STEPS"
    for s in "${wanted[@]}"; do
        printf '%s\n' "${lines[@]}" | awk -v s="$s" '$2 == s {found = 1} END {exit !found}' ||
            { echo "release.sh: plan '$plan' has no step '$s'" >&2; exit 2; }
    done
fi
selected() { [[ -z ${STEPS:-} || ",$STEPS," == *",$1,"* ]]; }

if [[ -z ${PREFIX:-} ]]; then
    gpu_names=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null || true)
    model=$(grep -oiE 'H[0-9]{3}' <<<"$gpu_names" | head -1 | tr '[:upper:]' '[:lower:]' || true)
    count=$(grep -c . <<<"$gpu_names" || true)
    if [[ -n $model ]]; then PREFIX=$model; ((count > 1)) && PREFIX+="x$count"; else PREFIX=dev-vm; fi
fi
[[ $PREFIX =~ ^[A-Za-z0-9._-]+$ ]] || { echo "release.sh: PREFIX '$PREFIX' is not a file name" >&2; exit 2; }
name=release-$PREFIX-$plan
mkdir -p "$out"
state=$(cd "$out" && pwd)/$name
# One call at a time in the out folder (a lock on the folder itself, no file left): a second one
# would pack over the first.
exec 9<"$out"
flock -n 9 || { echo "release.sh: another call is running in $out" >&2; exit 2; }

# The state: the previous call's archive (RESUME, else this out folder's own), or the folder a
# killed call left unpacked here.
resume=${RESUME:-}
[[ -n $resume || ! -f $out/$name.tgz ]] || resume=$out/$name.tgz
if [[ -n $resume ]]; then
    [[ ! -e $state ]] || { echo "release.sh: $state exists beside $resume: which one is the state?" >&2; exit 2; }
    tar -xzf "$resume" -C "$out" || { echo "release.sh: cannot read $resume" >&2; exit 2; }
    [[ -d $state ]] || { echo "release.sh: $resume holds no $name/ (another machine's or plan's?)" >&2; exit 2; }
fi
mkdir -p "$state/rows" "$state/lists" "$state/logs" "$state/launch-cache"
if [[ -f $state/version.txt ]]; then
    was=$(<"$state/version.txt")
    [[ $was == "$version" ]] ||
        { echo "release.sh: $state holds rows of version '$was', this bundle is '$version': one release is one version" >&2; exit 2; }
else
    echo "$version" > "$state/version.txt"
fi
printf '%s\n' "${lines[@]}" > "$state/plan.txt"
touch "$state/done.tsv"
call=1
while [[ -e $state/logs/call-$call ]]; do call=$((call + 1)); done
logs=$state/logs/call-$call
mkdir -p "$logs"
export XDG_CACHE_HOME=$state/launch-cache  # one launch-shape tuning per machine for the whole release
say() { echo "$*" | tee -a "$logs/console.log"; }
{
    echo "version: $version  plan: $plan  prefix: $PREFIX  steps: ${STEPS:-all}  budget: $budget s"
    echo "machine: $("$bench" --machine)"
    nvidia-smi -L 2>/dev/null || true
    lscpu 2>/dev/null | grep -E '^(Model name|CPU\(s\))' || true
} >> "$logs/machine.txt"
say "release.sh: version $version, $name, call $call, budget ${budget}s"
cp "${BASH_SOURCE[0]}" "$plans" "$logs/"  # the scripts this call ran, beside its logs
"$bench" --list > "$logs/list.txt" 2>&1 || true
say "available here: $(awk '$3 == "available" {n[$2]++} END {for (d in n) printf "%s %d  ", d, n[d]}' "$logs/list.txt")"

pack() {  # the state into $out/$name.tgz (a temporary renamed over it), the folder removed
    # Of the caches XDG_CACHE_HOME gathered (PoCL's, Mesa's), the launch shapes alone travel.
    find "$state/launch-cache" -mindepth 1 -maxdepth 1 ! -name accumulate-shootout -exec rm -rf {} +
    tar -czf "$out/.$name.tgz.tmp" -C "$out" "$name"
    mv "$out/.$name.tgz.tmp" "$out/$name.tgz"
    rm -rf "$state"
    echo "release.sh: $out/$name.tgz"
}
# Stopped from outside: what is done so far is packed (the unit running is run again next call).
trap 'say "release.sh: stopped by a signal"; pack; exit 3' TERM INT HUP

bytes_of() {  # bytes_of SIZE DTYPE: the input's bytes (per-thread sizes: none to speak of)
    local size=$1 width
    case $2 in f64) width=8 ;; f16 | bf16) width=2 ;; *) width=4 ;; esac
    if [[ $size =~ ^2\^([0-9]+)$ ]]; then echo $(((1 << BASH_REMATCH[1]) * width)); else echo 0; fi
}
expand_sizes() {  # 2^A..2^B -> one per line; a comma list as it is
    local spec
    IFS=, read -ra specs <<<"$1"
    for spec in "${specs[@]}"; do
        if [[ $spec =~ ^2\^([0-9]+)\.\.2\^([0-9]+)$ ]]; then
            for ((e = BASH_REMATCH[1]; e <= BASH_REMATCH[2]; ++e)); do echo "2^$e"; done
        else
            echo "$spec"
        fi
    done
}
unit_name() { echo "$1-$2-$3" | tr '^:' 'p-' | tr -c 'A-Za-z0-9._\n-' '-'; }  # input-size-dtype, a file name
is_done() { awk -F'\t' -v s="$1" -v u="$2" '$1 == s && $2 == u {found = 1} END {exit !found}' "$state/done.tsv"; }
estimate() {  # estimate STEP CASES BYTES COST: seconds, from the step's timings so far or the plan's cost
    awk -F'\t' -v s="$1" -v c="$2" -v x="$3" -v cost="$4" '
        $1 == s && $3 > 0 { w += $3; sx += $3 * $4; sy += $5; sxx += $3 * $4 * $4; sxy += $4 * $5; if ($4 > most) most = $4; n++ }
        END {
            split(cost, k, "+"); guess = c * (k[1] + k[2] * x / 1e9)
            if (n < 2) { printf "%d\n", guess + 1; exit }
            mean = sy / w; per = mean; det = w * sxx - sx * sx
            if (det > 0) { b = (w * sxy - sx * sy) / det; a = (sy - b * sx) / w; if (a >= 0 && b >= 0) per = a + b * x }
            fit = c * per * 1.2  # 20% over the fit: a unit stopped at the timeout is measured again whole
            if (x > 4 * most && guess > fit) fit = guess
            printf "%d\n", fit + 1
        }' "$state/done.tsv"
}

mpirun=(mpirun --oversubscribe)
[[ $(id -u) -eq 0 ]] && mpirun+=(--allow-run-as-root)
# The cases of each selected step here, for the estimates and for release_collect.py's coverage
# (an mpi step's as one rank lists them: the rank count is no part of a case's name).
for line in "${lines[@]}"; do
    read -r _ step _ tool backends sizes dtypes inputs _ args <<<"$line"
    selected "$step" || continue
    launcher=()
    case $tool in bench) ;; mpi:*) launcher=("${mpirun[@]}" -np 1) ;; *) continue ;; esac
    read -ra extra <<<"${args:-}"
    : > "$state/lists/$step.txt"
    IFS=, read -ra input_list <<<"$inputs"
    for input in "${input_list[@]}"; do
        "${launcher[@]}" "$bench" --backend="$backends" --sizes="$sizes" --dtype="$dtypes" --input="$input" "${extra[@]}" \
            --benchmark_list_tests 2>> "$logs/lists.log" | grep -E '/n:[0-9]+/dtype:' >> "$state/lists/$step.txt" || true
    done
done

left=()    # units not run for want of time
failed=()  # units whose run failed or was stopped, or that have no case here
pending=0  # selected units not done after this call
left_s=0   # their estimates, summed
for line in "${lines[@]}"; do
    read -r _ step _ tool backends sizes dtypes inputs cost args <<<"$line"
    selected "$step" || continue
    read -ra extra <<<"${args:-}"
    mkdir -p "$state/rows/$step"
    units=()  # "input size dtype"
    if [[ $tool == yardstick ]]; then
        units=("- all -")
    elif [[ $tool == frameworks ]]; then  # one run for all sizes: each run imports every framework anew
        IFS=, read -ra input_list <<<"$inputs"
        IFS=, read -ra dtype_list <<<"$dtypes"
        for input in "${input_list[@]}"; do
            for dtype in "${dtype_list[@]}"; do units+=("$input $sizes $dtype"); done
        done
    else
        IFS=, read -ra input_list <<<"$inputs"
        IFS=, read -ra dtype_list <<<"$dtypes"
        for input in "${input_list[@]}"; do
            while read -r size; do
                for dtype in "${dtype_list[@]}"; do units+=("$input $size $dtype"); done
            done < <(expand_sizes "$sizes")
        done
    fi
    for u in "${units[@]}"; do
        read -r input size dtype <<<"$u"
        if [[ $tool == yardstick ]]; then unit=all; else unit=$(unit_name "$input" "$size" "$dtype"); fi
        is_done "$step" "$unit" && continue
        bytes=$(bytes_of "$size" "$dtype")
        if [[ $tool == yardstick ]]; then
            cases=1
        elif [[ $tool == frameworks ]]; then
            # No case list: about 8 framework backends a size; bytes per case, their mean over the sizes.
            mapfile -t each < <(expand_sizes "$size")
            cases=$((8 * ${#each[@]}))
            bytes=$(for s in "${each[@]}"; do bytes_of "$s" "$dtype"; done | awk '{t += $1} END {printf "%d\n", t / NR}')
        elif [[ $size == per-thread:* ]]; then
            cases=$(grep -cF "/dtype:$dtype/input:$input/" "$state/lists/$step.txt" || true)
        else
            cases=$(grep -cF "/n:$(($(bytes_of "$size" f64) / 8))/dtype:$dtype/input:$input/" "$state/lists/$step.txt" || true)
        fi
        if ((cases == 0)); then  # nothing of it runs here: a backend missing, not a unit to mark done
            failed+=("$step/$unit (no case here: lists/$step.txt)")
            pending=$((pending + 1))
            continue
        fi
        need=$(if [[ $tool == yardstick ]]; then estimate "$step" 1 0 "$cost+0"; else estimate "$step" "$cases" "$bytes" "$cost"; fi)
        now_left=$((budget > 0 ? budget - pack_s - (SECONDS - started) : 1 << 30))
        if ((need > now_left)); then
            whole=""  # a unit no call's budget fits says so
            if ((budget > 0 && need > budget - pack_s)); then whole=": more than a whole call's budget"; fi
            left+=("$step/$unit (~${need}s$whole)")
            left_s=$((left_s + need))
            pending=$((pending + 1))
            continue
        fi
        rows=$state/rows/$step/$unit
        log=$logs/$step-$unit.log
        rm -rf "$rows.part.csv" "$rows.part"
        t0=${EPOCHREALTIME/,/.}  # seconds.microseconds, whatever the locale's decimal mark
        rc=0
        case $tool in
            bench)
                timeout -k 10 "$now_left" "$bench" --backend="$backends" --sizes="$size" --dtype="$dtype" --input="$input" \
                    "${extra[@]}" --csv="$rows.part.csv" > "$log" 2>&1 || rc=$? ;;
            mpi:*)
                timeout -k 10 "$now_left" "${mpirun[@]}" -np "${tool#mpi:}" "$bench" --backend="$backends" --sizes="$size" \
                    --dtype="$dtype" --input="$input" "${extra[@]}" --csv="$rows.part.csv" > "$log" 2>&1 || rc=$? ;;
            frameworks)
                timeout -k 10 "$now_left" python3 "$repo/frameworks/accumulate_frameworks.py" --bench="$bench" \
                    --backend="$backends" --sizes="$size" --dtype="$dtype" --input="$input" "${extra[@]}" \
                    --csv="$rows.part.csv" > "$log" 2>&1 || rc=$? ;;
            yardstick)
                if [[ ! -x $yardstick_bench ]]; then
                    failed+=("$step/$unit (no cpu_yardstick in $bundle)")
                    pending=$((pending + 1))
                    continue
                fi
                OUT=$rows.part timeout -k 10 "$now_left" env "${extra[@]}" "$here/cpu_speed_check.sh" "$(dirname "$yardstick_bench")" \
                    > "$log" 2>&1 || rc=$? ;;
        esac
        took=$(awk -v a="$t0" -v b="${EPOCHREALTIME/,/.}" 'BEGIN {printf "%.2f", b - a}')
        if ((rc > 1)) || [[ $tool != yardstick && ! -s $rows.part.csv ]]; then
            # Stopped by the timeout, refused (2), or nothing measured (a framework that would not
            # import): its rows so far stay apart, and the next call runs the unit again whole.
            # Exit status 1 with rows (a case failed or was skipped) counts as run.
            kept=""
            if [[ -s $rows.part.csv || -d $rows.part ]]; then kept="; rows so far in rows/$step/$unit.part*"; fi
            say "  $step $unit: exit status $rc after ${took}s (estimate ${need}s), not done$kept"
            failed+=("$step/$unit (exit status $rc: not done, in logs/call-$call/$step-$unit.log)")
            pending=$((pending + 1))
            continue
        fi
        if [[ $tool == yardstick ]]; then mv "$rows.part" "$rows"; else mv "$rows.part.csv" "$rows.csv"; fi
        # Recorded last: a unit is done once its rows are in place.
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$step" "$unit" "$cases" "$bytes" "$took" "$rc" "$call" >> "$state/done.tsv"
        ((rc == 0)) || failed+=("$step/$unit (exit status 1: a case failed or was skipped, in logs/call-$call/$step-$unit.log)")
        say "  $step $unit: ${took}s (estimate ${need}s), $cases cases, exit status $rc"
    done
done

say "release.sh: call $call of $name took $((SECONDS - started))s"
((${#failed[@]} == 0)) || { say "failed or stopped:"; printf '  %s\n' "${failed[@]}" | tee -a "$logs/console.log"; }
if ((${#left[@]})); then
    say "left for the next calls (RESUME=$name.tgz), ${#left[@]} units, about ${left_s}s by the estimates:"
    printf '  %s\n' "${left[@]}" | tee -a "$logs/console.log"
fi
trap - TERM INT HUP
pack
((pending == 0)) || exit 3
exit 0
