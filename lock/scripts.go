package lock

// Scripts shared by several designs. Design-specific scripts live beside the
// design.
var (
	// compareAndDelete deletes KEYS[1] only if it still holds the caller's
	// token: the unlock of the Redis docs, of 《Redis 实现分布式锁》 and of the
	// final version of 《使用Redis实现分布式锁及其优化》. With a KEYS[2] (a
	// notified design's unlock channel, as Redisson passes it) it also
	// publishes the unlock there, in the same script.
	compareAndDelete = newScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
  local n = redis.call("DEL", KEYS[1])
  if KEYS[2] then
    redis.call("PUBLISH", KEYS[2], "unlocked")
  end
  return n
end
return 0`)

	// compareAndPexpire resets the TTL (ARGV[2] ms) only for the owner.
	compareAndPexpire = newScript(`
if redis.call("GET", KEYS[1]) == ARGV[1] then
  return redis.call("PEXPIRE", KEYS[1], ARGV[2])
end
return 0`)
)
