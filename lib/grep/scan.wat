;; Byte scanning kernels for grep/read (WebAssembly SIMD). Regenerate the embedded
;; module in scan_wasm.ts with: wat2wasm lib/grep/scan.wat -o /dev/stdout | base64 -w0
(module
  (memory (export "mem") 1)
  ;; Count bytes equal to $b in [$p, $p+$n).
  (func (export "count") (param $p i32) (param $n i32) (param $b i32) (result i32)
    (local $end i32) (local $c i32) (local $s v128) (local $m v128)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $s (i8x16.splat (local.get $b)))
    (block $v64done
      (loop $v64
        (br_if $v64done (i32.gt_u (i32.add (local.get $p) (i32.const 64)) (local.get $end)))
        (local.set $m (v128.or
          (v128.or (i8x16.eq (v128.load (local.get $p)) (local.get $s))
                   (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $s)))
          (v128.or (i8x16.eq (v128.load offset=32 (local.get $p)) (local.get $s))
                   (i8x16.eq (v128.load offset=48 (local.get $p)) (local.get $s)))))
        (if (v128.any_true (local.get $m))
          (then
            (local.set $c (i32.add (local.get $c) (i32.add
              (i32.add (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load (local.get $p)) (local.get $s))))
                       (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $s)))))
              (i32.add (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load offset=32 (local.get $p)) (local.get $s))))
                       (i32.popcnt (i8x16.bitmask (i8x16.eq (v128.load offset=48 (local.get $p)) (local.get $s))))))))))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (br $v64)))
    (block $sdone
      (loop $sl
        (br_if $sdone (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $c (i32.add (local.get $c) (i32.eq (i32.load8_u (local.get $p)) (local.get $b))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $sl)))
    (local.get $c))
  ;; Index of the first byte equal to $b in [$p, $p+$n), or -1.
  (func $find (export "find") (param $p i32) (param $n i32) (param $b i32) (result i32)
    (local $end i32) (local $s v128) (local $m i32)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $s (i8x16.splat (local.get $b)))
    (block $v64done
      (loop $v64
        (br_if $v64done (i32.gt_u (i32.add (local.get $p) (i32.const 64)) (local.get $end)))
        (br_if $v64done (v128.any_true (v128.or
          (v128.or (i8x16.eq (v128.load (local.get $p)) (local.get $s))
                   (i8x16.eq (v128.load offset=16 (local.get $p)) (local.get $s)))
          (v128.or (i8x16.eq (v128.load offset=32 (local.get $p)) (local.get $s))
                   (i8x16.eq (v128.load offset=48 (local.get $p)) (local.get $s))))))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (br $v64)))
    (block $vdone
      (loop $vl
        (br_if $vdone (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $m (i8x16.bitmask (i8x16.eq (v128.load (local.get $p)) (local.get $s))))
        (if (local.get $m) (then (return (i32.add (local.get $p) (i32.ctz (local.get $m))))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vl)))
    (block $sdone
      (loop $sl
        (br_if $sdone (i32.ge_u (local.get $p) (local.get $end)))
        (if (i32.eq (i32.load8_u (local.get $p)) (local.get $b)) (then (return (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $sl)))
    (i32.const -1))
  ;; True when [$a, $a+$n) equals [$b, $b+$n).
  (func $eq (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $i)))
                    (i32.load8_u (i32.add (local.get $b) (local.get $i))))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (i32.const 1))
  ;; Index of the first occurrence of the $ln-byte literal at $lp in [$p, $p+$n), or -1.
  (func (export "findLit") (param $p i32) (param $n i32) (param $lp i32) (param $ln i32) (result i32)
    (local $end i32) (local $f v128) (local $l v128) (local $m i32) (local $cand i32) (local $last i32)
    (if (i32.le_u (local.get $ln) (i32.const 1))
      (then (return (call $find (local.get $p) (local.get $n) (i32.load8_u (local.get $lp))))))
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $last (i32.sub (local.get $ln) (i32.const 1)))
    (local.set $f (i8x16.splat (i32.load8_u (local.get $lp))))
    (local.set $l (i8x16.splat (i32.load8_u (i32.add (local.get $lp) (local.get $last)))))
    (block $vdone
      (loop $vl
        (br_if $vdone (i32.gt_u (i32.add (i32.add (local.get $p) (local.get $last)) (i32.const 16)) (local.get $end)))
        (local.set $m (i8x16.bitmask (v128.and
          (i8x16.eq (v128.load (local.get $p)) (local.get $f))
          (i8x16.eq (v128.load (i32.add (local.get $p) (local.get $last))) (local.get $l)))))
        (block $mdone
          (loop $ml
            (br_if $mdone (i32.eqz (local.get $m)))
            (local.set $cand (i32.add (local.get $p) (i32.ctz (local.get $m))))
            (if (call $eq (i32.add (local.get $cand) (i32.const 1)) (i32.add (local.get $lp) (i32.const 1))
                          (i32.sub (local.get $ln) (i32.const 2)))
              (then (return (local.get $cand))))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $ml)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vl)))
    (block $sdone
      (loop $sl
        (br_if $sdone (i32.gt_u (i32.add (local.get $p) (local.get $ln)) (local.get $end)))
        (if (call $eq (local.get $p) (local.get $lp) (local.get $ln)) (then (return (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $sl)))
    (i32.const -1))
  ;; True when ([$a, $a+$n) | mask at $m) equals [$b, $b+$n).
  (func $eqFold (param $a i32) (param $b i32) (param $m i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done
      (loop $l
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.ne (i32.or (i32.load8_u (i32.add (local.get $a) (local.get $i)))
                            (i32.load8_u (i32.add (local.get $m) (local.get $i))))
                    (i32.load8_u (i32.add (local.get $b) (local.get $i))))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $l)))
    (i32.const 1))
  ;; Like findLit, but each data byte is ORed with the mask byte at $mp before comparing
  ;; (mask 0x20 on ASCII letters gives an ASCII case-insensitive search; the literal at
  ;; $lp must already be ORed with the mask). Returns an index or -1.
  (func (export "findLitFold") (param $p i32) (param $n i32) (param $lp i32) (param $ln i32)
        (param $mp i32) (result i32)
    (local $end i32) (local $f v128) (local $fm v128) (local $l v128) (local $lm v128)
    (local $m i32) (local $cand i32) (local $last i32) (local $mid i32)
    (local.set $end (i32.add (local.get $p) (local.get $n)))
    (local.set $last (i32.sub (local.get $ln) (i32.const 1)))
    (local.set $mid (select (i32.sub (local.get $ln) (i32.const 2)) (i32.const 0)
                            (i32.ge_u (local.get $ln) (i32.const 2))))
    (local.set $f (i8x16.splat (i32.load8_u (local.get $lp))))
    (local.set $fm (i8x16.splat (i32.load8_u (local.get $mp))))
    (local.set $l (i8x16.splat (i32.load8_u (i32.add (local.get $lp) (local.get $last)))))
    (local.set $lm (i8x16.splat (i32.load8_u (i32.add (local.get $mp) (local.get $last)))))
    (block $vdone
      (loop $vl
        (br_if $vdone (i32.gt_u (i32.add (i32.add (local.get $p) (local.get $last)) (i32.const 16)) (local.get $end)))
        (local.set $m (i8x16.bitmask (v128.and
          (i8x16.eq (v128.or (v128.load (local.get $p)) (local.get $fm)) (local.get $f))
          (i8x16.eq (v128.or (v128.load (i32.add (local.get $p) (local.get $last))) (local.get $lm)) (local.get $l)))))
        (block $mdone
          (loop $ml
            (br_if $mdone (i32.eqz (local.get $m)))
            (local.set $cand (i32.add (local.get $p) (i32.ctz (local.get $m))))
            (if (call $eqFold (i32.add (local.get $cand) (i32.const 1)) (i32.add (local.get $lp) (i32.const 1))
                              (i32.add (local.get $mp) (i32.const 1)) (local.get $mid))
              (then (return (local.get $cand))))
            (local.set $m (i32.and (local.get $m) (i32.sub (local.get $m) (i32.const 1))))
            (br $ml)))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vl)))
    (block $sdone
      (loop $sl
        (br_if $sdone (i32.gt_u (i32.add (local.get $p) (local.get $ln)) (local.get $end)))
        (if (call $eqFold (local.get $p) (local.get $lp) (local.get $mp) (local.get $ln))
          (then (return (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $sl)))
    (i32.const -1))
  ;; Index of the last byte equal to $b in [$p, $p+$n), or -1.
  (func (export "findLast") (param $p i32) (param $n i32) (param $b i32) (result i32)
    (local $i i32) (local $s v128) (local $m i32)
    (local.set $i (i32.add (local.get $p) (local.get $n)))
    (local.set $s (i8x16.splat (local.get $b)))
    (block $vdone
      (loop $vl
        (br_if $vdone (i32.lt_u (i32.sub (local.get $i) (local.get $p)) (i32.const 16)))
        (local.set $i (i32.sub (local.get $i) (i32.const 16)))
        (local.set $m (i8x16.bitmask (i8x16.eq (v128.load (local.get $i)) (local.get $s))))
        (if (local.get $m) (then (return (i32.sub (i32.add (local.get $i) (i32.const 31)) (i32.clz (local.get $m))))))
        (br $vl)))
    (block $sdone
      (loop $sl
        (br_if $sdone (i32.le_u (local.get $i) (local.get $p)))
        (local.set $i (i32.sub (local.get $i) (i32.const 1)))
        (if (i32.eq (i32.load8_u (local.get $i)) (local.get $b)) (then (return (local.get $i))))
        (br $sl)))
    (i32.const -1))
)
