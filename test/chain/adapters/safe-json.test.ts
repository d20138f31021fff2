/**
 * parseJsonExact keeps integers above 2^53 exact as decimal strings and leaves
 * everything else exactly as JSON.parse would.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseJsonExact, rawQuantity } from '../../../src/chain/counterparty-core/safe-json.js';

void describe('parseJsonExact', () => {
  void it('quotes unsafe integers anywhere, keeps safe ones as numbers', () => {
    const text = '{"quantity": 9223372036854775807, "small": 9007199254740991, "list": [18446744073709551615, -9223372036854775808, 1]}';
    assert.deepEqual(parseJsonExact(text), {
      quantity: '9223372036854775807',
      small: 9007199254740991,
      list: ['18446744073709551615', '-9223372036854775808', 1],
    });
  });

  void it('2^53 + 1 is kept exact (JSON.parse would round it to 2^53)', () => {
    assert.deepEqual(parseJsonExact('{"q":9007199254740993}'), { q: '9007199254740993' });
  });

  void it('never touches digits inside strings, fractions or exponents', () => {
    const text = '{"asset":"A95428956980101314","memo":"say \\"12345678901234567890\\"","f":1234567890123456789.5,"e":12345678901234567890e2,"t":1781627753.799265}';
    assert.deepEqual(parseJsonExact(text), JSON.parse(text));
  });

  void it('leaves ordinary documents alone', () => {
    const text = JSON.stringify({ result: [{ quantity: 100, asset: 'XCP', ok: true, none: null }], next_cursor: null });
    assert.deepEqual(parseJsonExact(text), JSON.parse(text));
  });

  void it('throws on invalid JSON like JSON.parse', () => {
    assert.throws(() => parseJsonExact('{"a":'), SyntaxError);
  });
});

void describe('rawQuantity', () => {
  void it('canonical decimal strings from numbers and strings; null for anything else', () => {
    assert.equal(rawQuantity(0), '0');
    assert.equal(rawQuantity(100000000), '100000000');
    assert.equal(rawQuantity('00012'), '12');
    assert.equal(rawQuantity('12345678901234567890'), '12345678901234567890');
    assert.equal(rawQuantity(1.5), null);
    assert.equal(rawQuantity(2 ** 60), null);
    assert.equal(rawQuantity('1e5'), null);
    assert.equal(rawQuantity(null), null);
  });
});
