import Testing

@testable import GraftDebugger

@Suite("Ring buffer")
struct RingBufferTests {
    @Test("keeps at most its capacity, dropping the oldest, in order")
    func bound() {
        var ring = RingBuffer<Int>(capacity: 3)
        #expect(ring.isEmpty)
        for value in 1...2 { ring.append(value) }
        #expect(ring.elements == [1, 2])
        for value in 3...7 { ring.append(value) }
        #expect(ring.count == 3)
        #expect(ring.elements == [5, 6, 7])
        #expect(ring[0] == 5 && ring[2] == 7)
    }

    @Test("suffix gives the newest, oldest first, and never more than it has")
    func suffix() {
        var ring = RingBuffer<Int>(capacity: 4)
        for value in 1...10 { ring.append(value) }
        #expect(ring.suffix(2) == [9, 10])
        #expect(ring.suffix(10) == [7, 8, 9, 10])
        #expect(ring.suffix(0).isEmpty)
        ring.removeAll()
        #expect(ring.elements.isEmpty)
        ring.append(11)
        #expect(ring.elements == [11])
    }
}

@Suite("Line buffer")
struct LineBufferTests {
    @Test("splits lines across reads and drops a carriage return")
    func lines() {
        var buffer = LineBuffer(limit: 100)
        #expect(buffer.append("{\"a\":") == .lines([]))
        #expect(buffer.append("1}\r\n{\"b\":2}\n{\"c") == .lines(["{\"a\":1}", "{\"b\":2}"]))
        #expect(buffer.append("\":3}\n") == .lines(["{\"c\":3}"]))
    }

    @Test("refuses a line longer than the limit, whether or not it has ended")
    func tooLong() {
        var open = LineBuffer(limit: 8)
        #expect(open.append("123456789") == .lineTooLong)
        var ended = LineBuffer(limit: 8)
        #expect(ended.append("ok\n123456789\n") == .lineTooLong)
        var exact = LineBuffer(limit: 8)
        #expect(exact.append("12345678\n") == .lines(["12345678"]))
    }
}
