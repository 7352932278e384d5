import { createBase58check } from '@scure/base';
import { sha256 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkAddress, sameAddress, toChecksumAddress, tronAddressFromHex } from './chain-address.js';

describe('TRON (TRC-20) addresses', () => {
  it('accepts real mainnet addresses', () => {
    // TRON's documentation example and its account id (hex 41 8840e6c5…d808).
    expect(tronAddressFromHex('8840E6C55B9ADA326D211D818C34A994AECED808')).toBe(
      'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL',
    );
    for (const address of [
      'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL',
      'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
      'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
    ]) {
      expect(checkAddress('tron', address), address).toEqual({ ok: true, address });
    }
  });

  it('refuses each way an address can be wrong, with the reason', () => {
    const cases: Array<[string, string]> = [
      ['TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeM', 'bad_checksum'], // last character changed
      ['TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqe', 'wrong_length'],
      ['TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeLL', 'wrong_length'],
      ['ANPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', 'wrong_prefix'],
      ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'wrong_prefix'],
      ['TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYq0L', 'invalid_characters'], // 0 is not base58
      ['TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqIL', 'invalid_characters'], // nor is I
      ['T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', 'zero_address'],
      ['TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'token_contract'], // the USDT contract itself
      ['', 'wrong_prefix'],
    ];
    for (const [address, reason] of cases) {
      expect(checkAddress('tron', address), address).toEqual({ ok: false, reason });
    }
  });

  it('refuses a valid base58check payload with another version byte', () => {
    const encode = createBase58check(sha256).encode;
    // Find a payload with version byte 0x42 that still encodes to 34 characters starting with T.
    let found: string | undefined;
    for (let seed = 0; seed < 5000 && found === undefined; seed++) {
      const bytes = new Uint8Array(21).fill(seed % 251);
      bytes[0] = 0x42;
      bytes[20] = seed >> 8;
      const candidate = encode(bytes);
      if (candidate.startsWith('T') && candidate.length === 34) found = candidate;
    }
    expect(found).toBeDefined();
    expect(checkAddress('tron', found ?? '')).toEqual({ ok: false, reason: 'wrong_version_byte' });
  });

  it('accepts every 20-byte account id and refuses any single-character corruption', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.nat(), (id, position) => {
        fc.pre(id.some((byte) => byte !== 0));
        const address = tronAddressFromHex(Buffer.from(id).toString('hex'));
        expect(checkAddress('tron', address)).toEqual({ ok: true, address });
        const index = 1 + (position % 33);
        const replacement = address[index] === 'z' ? 'y' : 'z';
        const corrupted = address.slice(0, index) + replacement + address.slice(index + 1);
        expect(checkAddress('tron', corrupted).ok).toBe(false);
      }),
    );
  });
});

describe('Ethereum (ERC-20) addresses', () => {
  // The test vectors of EIP-55 itself.
  const EIP55 = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
  ];

  it('accepts the EIP-55 vectors and returns the checksummed form', () => {
    for (const address of EIP55) {
      const checked = checkAddress('ethereum', address);
      expect(checked.ok, address).toBe(true);
      expect(checked.ok && checked.address.toLowerCase()).toBe(address.toLowerCase());
    }
    expect(toChecksumAddress('5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe(EIP55[0]);
    // No checksum to check in an all-lowercase or all-uppercase address; it comes back checksummed.
    expect(checkAddress('ethereum', EIP55[0]?.toLowerCase() ?? '')).toEqual({ ok: true, address: EIP55[0] });
    expect(checkAddress('ethereum', '0x' + (EIP55[0] ?? '').slice(2).toUpperCase())).toEqual({
      ok: true,
      address: EIP55[0],
    });
  });

  it('refuses a mixed-case address whose case does not match EIP-55', () => {
    for (const address of EIP55.slice(0, 4)) {
      // Flip the case of each letter in turn: every flip breaks the checksum.
      for (let i = 2; i < address.length; i++) {
        const char = address[i] ?? '';
        if (!/[a-fA-F]/.test(char)) continue;
        const flipped = char === char.toLowerCase() ? char.toUpperCase() : char.toLowerCase();
        const candidate = address.slice(0, i) + flipped + address.slice(i + 1);
        const lowerOrUpper =
          candidate.slice(2) === candidate.slice(2).toLowerCase() ||
          candidate.slice(2) === candidate.slice(2).toUpperCase();
        if (lowerOrUpper) continue;
        expect(checkAddress('ethereum', candidate), candidate).toEqual({ ok: false, reason: 'bad_checksum' });
      }
    }
  });

  it('refuses each way an address can be wrong, with the reason', () => {
    const cases: Array<[string, string]> = [
      ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe', 'wrong_length'],
      ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00', 'wrong_length'],
      ['5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'wrong_prefix'],
      ['0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 'wrong_prefix'],
      ['TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL', 'wrong_prefix'],
      ['0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg', 'invalid_characters'],
      ['0x0000000000000000000000000000000000000000', 'zero_address'],
      ['0xdAC17F958D2ee523a2206206994597C13D831ec7', 'token_contract'], // the USDT contract
      ['0xdac17f958d2ee523a2206206994597c13d831ec7', 'token_contract'],
    ];
    for (const [address, reason] of cases) {
      expect(checkAddress('ethereum', address), address).toEqual({ ok: false, reason });
    }
  });
});

describe('sameAddress: one account as a chain or explorer spells it', () => {
  it('compares Ethereum addresses without case (EIP-55 case is only a checksum)', () => {
    const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
    expect(sameAddress('ethereum', checksummed, checksummed.toLowerCase())).toBe(true);
    expect(sameAddress('ethereum', checksummed.toLowerCase(), checksummed)).toBe(true);
    expect(sameAddress('ethereum', checksummed, '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359')).toBe(false);
  });

  it('compares TRON addresses exactly (base58 is case-sensitive)', () => {
    const address = 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqeL';
    expect(sameAddress('tron', address, address)).toBe(true);
    expect(sameAddress('tron', address, address.toLowerCase())).toBe(false);
    expect(sameAddress('tron', address, 'TNPeeaaFB7K9cmo4uQpcU32zGK8G1NYqEL')).toBe(false);
  });
});
