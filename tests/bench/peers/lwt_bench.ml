(* lwt_bench.ml: the OCaml Lwt 5 peer of Skein's runtime benchmark.

   Skein's `make bench` runs this program as a subprocess and divides its own
   time per operation by the one printed here. The program is the peer's best
   effort, written the way a performance-minded Lwt programmer would write it:
   Lwt.bind called directly (no ppx, no operator indirection), Lwt.wakeup
   (resolve now, callbacks run on this stack) rather than Lwt.wakeup_later,
   closures hoisted out of loops where they capture nothing per iteration.

   Usage: lwt_bench --workload W1|W2|W3|W4 --n N --repeat R

   Workloads, and what one "operation" is:
   - W1 resolve-bind: Lwt.wait, Lwt.bind a continuation returning
     Lwt.return (x + 1), Lwt.wakeup, read Lwt.state. One op = one iteration.
     Runs outside Lwt_main.run: nothing here needs the scheduler, since
     Lwt.wakeup runs the bound callback immediately.
   - W2 pause-loop: a recursive loop of N Lwt.pause, under Lwt_main.run.
     One op = one pause. This includes what Lwt_main.run does per tick
     (Lwt.wakeup_paused plus a non-blocking Lwt_engine.iter, i.e. one
     zero-timeout poll of the I/O engine): that is the real cost of yielding
     to Lwt's scheduler, so it is measured, not hidden.
   - W3 fan-out-join: N/1000 rounds of 1000 Lwt.wait, one Lwt.map on each,
     Lwt.join of the mapped promises, then Lwt.wakeup of all 1000. One op =
     one promise (total / (rounds * 1000), which is total / N when N is a
     multiple of 1000; N below 1000 runs one round).
   - W4 ping-pong: two Lwt threads passing a counter through two Lwt_mvar
     boxes under Lwt_main.run. One op = one round trip (A -> B -> A).

   What holds, so the ratio is fair:
   - Same N as the Skein side; one untimed warm-up run with max 1 (N/10)
     first, then R timed runs, each preceded (untimed) by Gc.full_major so one
     run's garbage is not collected on the next run's clock. Garbage made
     during a run is collected during it: allocation is part of Lwt's cost.
   - No I/O inside the timed region; the clock is CLOCK_MONOTONIC read by a
     C binding (lwt_bench_clock.c), because Mtime is not packaged on Debian 12.
   - Every workload checks its result (each W1 value, the W2 pause count, the
     W3 join state and sum, the W4 final counter and every reply) and the
     program exits 1 with a message if it is wrong, so nothing can be skipped
     or optimised away unnoticed.
   - Output: one line per timed run on stdout, exactly "W1 lwt 43.21" (ns per
     op, two decimals); a "#" comment naming the unit on stderr. Bad
     arguments: message on stderr, exit 2. Loops are bounded by N; no
     network; the program stops by itself. *)

external now_ns : unit -> int = "skein_peer_now_ns" [@@noalloc]

(* A failed check. Raised, not exit-ed, so that inside Lwt_main.run it
   rejects the main promise and surfaces from Lwt_main.run cleanly. *)
exception Check_failed of string

let check_failed fmt = Printf.ksprintf (fun s -> raise (Check_failed s)) fmt

(* W1: each iteration builds a fresh pending promise, so nothing is reused
   across iterations; the continuation captures nothing and is allocated
   once. *)
let w1 n =
  let succ_promise x = Lwt.return (x + 1) in
  for x = 0 to n - 1 do
    let p, r = Lwt.wait () in
    let q = Lwt.bind p succ_promise in
    Lwt.wakeup r x;
    match Lwt.state q with
    | Lwt.Return v when v = x + 1 -> ()
    | _ -> check_failed "W1: iteration %d did not resolve to %d" x (x + 1)
  done;
  n

(* W2: the loop of the brief, with Lwt.bind instead of >>= (the same
   function, one indirection less). *)
let w2 n =
  let count = ref 0 in
  let rec loop i =
    if i = 0 then Lwt.return_unit
    else
      Lwt.bind (Lwt.pause ()) (fun () ->
          incr count;
          loop (i - 1))
  in
  Lwt_main.run (loop n);
  if !count <> n then check_failed "W2: %d pauses resumed, expected %d" !count n;
  n

(* W3: resolvers go into an array reused across rounds (no per-round
   allocation beyond Lwt's own); the mapped promises into a list, which is
   what Lwt.join takes. The map function adds the value into a sum, so the
   check sees that every map ran exactly once. *)
let w3_width = 1000

let w3 n =
  let rounds = max 1 (n / w3_width) in
  let _, unused = Lwt.wait () in
  let resolvers = Array.make w3_width unused in
  let sum = ref 0 in
  let add v = sum := !sum + v in
  let expected = w3_width * (w3_width - 1) / 2 in
  for round = 1 to rounds do
    sum := 0;
    let mapped = ref [] in
    for i = 0 to w3_width - 1 do
      let p, r = Lwt.wait () in
      resolvers.(i) <- r;
      mapped := Lwt.map add p :: !mapped
    done;
    let all = Lwt.join !mapped in
    (match Lwt.state all with
     | Lwt.Sleep -> ()
     | _ -> check_failed "W3: round %d: join resolved before any promise" round);
    for i = 0 to w3_width - 1 do
      Lwt.wakeup resolvers.(i) i
    done;
    match Lwt.state all with
    | Lwt.Return () when !sum = expected -> ()
    | Lwt.Return () ->
      check_failed "W3: round %d: sum %d, expected %d" round !sum expected
    | _ -> check_failed "W3: round %d: join did not resolve" round
  done;
  rounds * w3_width

(* W4: A puts x in box1 and waits for x + 1 in box2; B takes from box1 and
   puts the successor in box2. Lwt.both starts both threads and waits for
   both, the usual idiom. *)
let w4 n =
  let box1 = Lwt_mvar.create_empty () in
  let box2 = Lwt_mvar.create_empty () in
  let rec a i x =
    if i = 0 then Lwt.return x
    else
      Lwt.bind (Lwt_mvar.put box1 x) (fun () ->
          Lwt.bind (Lwt_mvar.take box2) (fun y ->
              if y <> x + 1 then check_failed "W4: sent %d, got back %d" x y;
              a (i - 1) y))
  in
  let rec b i =
    if i = 0 then Lwt.return_unit
    else
      Lwt.bind (Lwt_mvar.take box1) (fun x ->
          Lwt.bind (Lwt_mvar.put box2 (x + 1)) (fun () -> b (i - 1)))
  in
  let final, () = Lwt_main.run (Lwt.both (a n 0) (b n)) in
  if final <> n then check_failed "W4: final counter %d, expected %d" final n;
  n

let workloads =
  [ ("W1", (w1, "ns per resolve-bind iteration"));
    ("W2", (w2, "ns per Lwt.pause"));
    ("W3", (w3, "ns per promise (1000 per join)"));
    ("W4", (w4, "ns per round trip (2 mvar hand-overs)")) ]

let usage =
  "usage: lwt_bench --workload W1|W2|W3|W4 --n N --repeat R\n\
  \  W1 resolve-bind, W2 pause-loop, W3 fan-out-join, W4 ping-pong (Lwt_mvar)\n\
  \  Runs the workload once untimed with max(1, N/10), then R timed runs, and\n\
  \  prints one line per timed run: \"W1 lwt 43.21\" (ns per operation).\n\
  \  Exit 0 on success, 1 if a workload's result is wrong, 2 on bad arguments.\n"

let bad_args msg =
  prerr_string ("lwt_bench: " ^ msg ^ "\n" ^ usage);
  exit 2

(* Plain decimal digits only (int_of_string would also take "0x10" or
   "1_000"), so both peer programs accept exactly the same arguments. *)
let positive_int name s =
  let digits = s <> "" && String.for_all (fun c -> c >= '0' && c <= '9') s in
  match if digits then int_of_string_opt s else None with
  | Some v when v > 0 -> v
  | _ -> bad_args (Printf.sprintf "%s must be a positive integer, got %S" name s)

let parse_args () =
  let workload = ref None and n = ref None and repeat = ref None in
  let rec go = function
    | [] -> ()
    | ("--help" | "-h") :: _ -> print_string usage; exit 0
    | "--workload" :: w :: rest ->
      if not (List.mem_assoc w workloads) then
        bad_args (Printf.sprintf "unknown workload %S" w);
      workload := Some w;
      go rest
    | "--n" :: v :: rest -> n := Some (positive_int "--n" v); go rest
    | "--repeat" :: v :: rest -> repeat := Some (positive_int "--repeat" v); go rest
    | [ ("--workload" | "--n" | "--repeat") as opt ] ->
      bad_args (Printf.sprintf "%s needs a value" opt)
    | arg :: _ -> bad_args (Printf.sprintf "unexpected argument %S" arg)
  in
  go (List.tl (Array.to_list Sys.argv));
  match (!workload, !n, !repeat) with
  | Some w, Some n, Some r -> (w, n, r)
  | _ -> bad_args "--workload, --n and --repeat are all required"

let () =
  let name, n, repeat = parse_args () in
  let run, unit_name = List.assoc name workloads in
  Printf.eprintf "# %s lwt: %s, n=%d, repeat=%d\n%!" name unit_name n repeat;
  try
    ignore (run (max 1 (n / 10)));
    for _ = 1 to repeat do
      Gc.full_major ();
      let t0 = now_ns () in
      let ops = run n in
      let t1 = now_ns () in
      Printf.printf "%s lwt %.2f\n%!" name (float_of_int (t1 - t0) /. float_of_int ops)
    done
  with Check_failed msg ->
    prerr_endline ("lwt_bench: check failed: " ^ msg);
    exit 1
