import net from 'node:net';
import dns2 from 'dns2';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/cluster';
import { createCachingResolver } from './dns-cache';

/**
 * The pre-send check's DNS (issue 44 §6): an answer too long for one datagram comes back
 * truncated over UDP and is asked again over TCP, within the same timeout. Real servers on
 * loopback: dns2's UDP server answering with the TC bit, and a TCP server on the same port.
 */

const { Packet } = dns2;
const LONG_SPF = `v=spf1 ${Array.from({ length: 40 }, (_, index) => `ip4:192.0.2.${index}`).join(' ')} -all`;

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A UDP server that answers every question truncated, with no records: "ask me over TCP". */
const startTruncatingUdp = async (port: number) => {
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      response.header.tc = 1;
      send(response);
    },
  });
  await server.listen({ udp: { port, address: '127.0.0.1' } });
  closers.push(() => server.close());
};

describe('a truncated answer', () => {
  it('is asked again over TCP, and the whole record comes back', async () => {
    const port = await freePort();
    await startTruncatingUdp(port);
    const tcpQuestions: string[] = [];
    const tcp = dns2.createServer({
      tcp: true,
      handle: (request, send) => {
        const response = Packet.createResponseFromRequest(request);
        const question = request.questions[0]!;
        tcpQuestions.push(question.name);
        response.answers.push(<never>{
          name: question.name,
          type: Packet.TYPE.TXT,
          class: Packet.CLASS.IN,
          ttl: 300,
          data: LONG_SPF.match(/.{1,255}/gs),
        });
        send(response);
      },
    });
    await tcp.listen({ tcp: { port, address: '127.0.0.1' } });
    closers.push(() => tcp.close());

    const resolver = createCachingResolver([`127.0.0.1:${port}`]);
    const answer = (await resolver.resolve('long.example', 'TXT')) as string[][];
    expect(answer.map((chunks) => chunks.join(''))).toEqual([LONG_SPF]);
    expect(tcpQuestions).toEqual(['long.example']);
  });

  it('fails with ETIMEDOUT when the TCP server never answers, its connection closed', async () => {
    const port = await freePort();
    await startTruncatingUdp(port);
    const open = new Set<net.Socket>();
    const closed: string[] = [];
    const silent = net.createServer((socket) => {
      open.add(socket);
      // Reads the question and says nothing (a paused socket would never see the other end close).
      socket.resume();
      socket.on('close', () => {
        open.delete(socket);
        closed.push('closed');
      });
    });
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => silent.close(resolve)));

    const resolver = createCachingResolver([`127.0.0.1:${port}`], { timeoutMs: 300 });
    await expect(resolver.resolve('long.example', 'TXT')).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    // The resolver hung up: the server sees its one connection close.
    await expect.poll(() => closed).toEqual(['closed']);
    expect(open.size).toBe(0);
  });
});
