if (n > {{SPAN}}u && j < n - {{SPAN}}u && j % {{STEP}}u == 0u) {
  let p = j / {{STEP}}u;
  let parity = p & 1u;
  {{WRITES}}
}
