// A queue's two lanes, each in the queue's order, as the server ranks its tasks
// (DepartmentTask.inQueue, queueLane, queueRank): shared by the app's queues and the wall
// display, which spell no rule of the queue's own.
function byRank(a, b) {
  return a.queueRank < b.queueRank ? -1 : a.queueRank > b.queueRank ? 1 : 0;
}

export function lanes(tasks) {
  const inLane = (lane) => tasks.filter((t) => t.inQueue && t.queueLane === lane).sort(byRank);
  return { waiting: inLane("WAITING"), inProgress: inLane("IN_PROGRESS") };
}
