// The joint scenario of a batch whose states (padded = false) or padded box (padded = true)
// hold global index idx. A batch's scenarios lie in order and are few (each is a large joint
// model), so a scan; it spares a per-state map and keeps the sweep within 8 storage bindings.
// Needs the `joint` binding and the uniform `num_scenarios`.
fn joint_scenario(idx: u32, padded: bool) -> u32 {
  var sc = 0u;
  loop {
    if (sc + 1u >= u.num_scenarios) {
      break;
    }
    let next = joint[sc + 1u];
    if (idx < select(next.state_offset, next.pad_offset, padded)) {
      break;
    }
    sc++;
  }
  return sc;
}

// The live joint scenario whose states (padded = false) or padded box (padded = true) hold global
// index idx, or u.num_scenarios where idx is past the `total` indices or its scenario has stopped
// (live = 0): then the thread has nothing to do. Needs the `scenarios` binding too.
fn live_joint_scenario(idx: u32, total: u32, padded: bool) -> u32 {
  if (idx >= total) {
    return u.num_scenarios;
  }
  let sc = joint_scenario(idx, padded);
  if (scenarios[sc].live == 0u) {
    return u.num_scenarios;
  }
  return sc;
}
