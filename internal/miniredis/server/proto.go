package server

import (
	"bufio"
	"errors"
	"strconv"
)

type Simple string

// ErrProtocol is the general error for unexpected input
var ErrProtocol = errors.New("invalid request")

// client always sends arrays with bulk strings
func readArray(rd *bufio.Reader) ([]string, error) {
	line, err := readLine(rd)
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, ErrProtocol
	}

	switch line[0] {
	default:
		return nil, ErrProtocol
	case '*':
		l, err := strconv.Atoi(string(line[1 : len(line)-2]))
		if err != nil {
			return nil, err
		}
		// l can be -1
		var fields []string
		if l > 0 {
			// locksim patch: room for the usual command at once.
			fields = make([]string, 0, min(l, 16))
		}
		for ; l > 0; l-- {
			s, err := readString(rd)
			if err != nil {
				return nil, err
			}
			fields = append(fields, s)
		}
		return fields, nil
	}
}

// readLine reads a line up to its '\n', which it holds, as ReadString
// does; the line is valid until the next read.
//
// locksim patch: upstream reads every line with ReadString, a string
// made for each header of a command and of each of its arguments.
func readLine(rd *bufio.Reader) ([]byte, error) {
	line, err := rd.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		// Longer than the buffer: the rest as upstream read it.
		head := append([]byte(nil), line...)
		rest, err := rd.ReadString('\n')
		return append(head, rest...), err
	}
	return line, err
}

func readString(rd *bufio.Reader) (string, error) {
	line, err := readLine(rd)
	if err != nil {
		return "", err
	}
	if len(line) < 3 {
		return "", ErrProtocol
	}

	switch line[0] {
	default:
		return "", ErrProtocol
	case '+', '-', ':':
		// +: simple string
		// -: errors
		// :: integer
		// Simple line based replies.
		return string(line[1 : len(line)-2]), nil
	case '$':
		// bulk strings are: `$5\r\nhello\r\n`
		length, err := strconv.Atoi(string(line[1 : len(line)-2]))
		if err != nil {
			return "", err
		}
		if length < 0 {
			// -1 is a nil response
			return "", nil
		}
		if rd.Buffered() >= length+2 {
			// locksim patch: a string already in the buffer is made from
			// it, where upstream copied it out first.
			b, _ := rd.Peek(length + 2)
			s := string(b[:length])
			_, _ = rd.Discard(length + 2)
			return s, nil
		}
		var (
			buf = make([]byte, length+2)
			pos = 0
		)
		for pos < length+2 {
			n, err := rd.Read(buf[pos:])
			if err != nil {
				return "", err
			}
			pos += n
		}
		return string(buf[:length]), nil
	}
}

// parse a reply
func ParseReply(rd *bufio.Reader) (interface{}, error) {
	line, err := rd.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 {
		return nil, ErrProtocol
	}

	switch line[0] {
	default:
		return nil, ErrProtocol
	case '+':
		// +: simple string
		return Simple(line[1 : len(line)-2]), nil
	case '-':
		// -: errors
		return nil, errors.New(string(line[1 : len(line)-2]))
	case ':':
		// :: integer
		v := line[1 : len(line)-2]
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, ErrProtocol
		}
		return n, nil
	case '$':
		// bulk strings are: `$5\r\nhello\r\n`
		length, err := strconv.Atoi(line[1 : len(line)-2])
		if err != nil {
			return "", err
		}
		if length < 0 {
			// -1 is a nil response
			return nil, nil
		}
		var (
			buf = make([]byte, length+2)
			pos = 0
		)
		for pos < length+2 {
			n, err := rd.Read(buf[pos:])
			if err != nil {
				return "", err
			}
			pos += n
		}
		return string(buf[:length]), nil
	case '*':
		// array
		l, err := strconv.Atoi(line[1 : len(line)-2])
		if err != nil {
			return nil, ErrProtocol
		}
		// l can be -1
		if l < 0 {
			return nil, nil
		}
		var fields []interface{}
		for ; l > 0; l-- {
			s, err := ParseReply(rd)
			if err != nil {
				return nil, err
			}
			fields = append(fields, s)
		}
		return fields, nil
	}
}
