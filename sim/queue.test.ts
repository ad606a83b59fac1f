import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { EventQueue } from "./queue.ts"

describe("EventQueue", () => {
  it("pops events by time, then by order key, whatever the order of the pushes", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 1_000 })), {
          maxLength: 300,
        }),
        (events) => {
          // Order keys are unique in the simulation: make them so.
          const unique = events.map(([t, o], i) => [t, o * 1_000 + i] as const)
          const q = new EventQueue(2)
          for (const [i, [t, o]] of unique.entries()) q.push(t, o, i)
          const popped: Array<readonly [number, number, number]> = []
          while (q.size > 0) {
            popped.push([q.peekTime(), q.peekOrder(), q.peekPayload()])
            q.pop()
          }
          const expected = unique
            .map(([t, o], i) => [t, o, i] as const)
            .sort((a, b) => a[0] - b[0] || a[1] - b[1])
          expect(popped).toEqual(expected)
        },
      ),
    )
  })

  it("pops in the same order when events go through lanes, in order or not", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: -1, max: 2 })), {
          maxLength: 300,
        }),
        fc.array(fc.boolean(), { maxLength: 300 }),
        (pushes, pops) => {
          // A clock that moves forward; each push is "now + delay" into a lane (-1: the heap).
          const q = new EventQueue(2, 2)
          const reference: Array<readonly [number, number, number]> = []
          const popped: Array<readonly [number, number, number]> = []
          const expected: Array<readonly [number, number, number]> = []
          let now = 0
          pushes.forEach(([delay, lane], i) => {
            const at = now + delay
            q.pushLane(lane, at, i, i)
            reference.push([at, i, i])
            if (pops[i] === true && q.size > 0) {
              now = q.peekTime()
              popped.push([q.peekTime(), q.peekOrder(), q.peekPayload()])
              q.pop()
              reference.sort((a, b) => a[0] - b[0] || a[1] - b[1])
              expected.push(reference.shift() as readonly [number, number, number])
            }
          })
          while (q.size > 0) {
            popped.push([q.peekTime(), q.peekOrder(), q.peekPayload()])
            q.pop()
          }
          reference.sort((a, b) => a[0] - b[0] || a[1] - b[1])
          expect(popped).toEqual([...expected, ...reference])
        },
      ),
    )
  })

  it("reports an empty queue's next time as Infinity", () => {
    const q = new EventQueue()
    expect(q.peekTime()).toBe(Number.POSITIVE_INFINITY)
    q.push(5, 0, 1)
    q.pop()
    expect(q.size).toBe(0)
  })
})
