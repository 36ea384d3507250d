package rediscluster

import "strings"

// SlotOf is the hash slot of key: CRC16 (XMODEM) of the key, or of its
// hash tag (what lies between the first '{' and the next '}' when that is
// not empty), modulo 16384, as the cluster specification defines it.
func SlotOf(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(key) % Slots)
}

// crc16 is CRC-16/XMODEM: polynomial 0x1021, initial value 0, no
// reflection, no final xor.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
