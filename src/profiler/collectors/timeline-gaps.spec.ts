import { timelineGaps } from './timeline-gaps.js';

const event = (name: string, start: number, duration: number) => ({ name, category: 'event', start, duration });

describe('timelineGaps', () => {
  it('names each hole between the kernel steps for what the kernel does there, up to kernel.terminate', () => {
    const bars = [
      event('kernel.request', 0.2, 1),
      { name: 'SessionListener::onKernelRequest', category: 'listener', start: 0.2, duration: 1 },
      event('kernel.controller', 2, 0.5),
      event('kernel.controller_arguments', 2.5, 0.5),
      { name: 'CheckoutController.place', category: 'controller', start: 3.5, duration: 10 },
      { name: 'insert into orders', category: 'query', start: 4, duration: 2 },
      { name: 'shop/order', category: 'template', start: 12, duration: 1 },
      event('kernel.response', 14, 3),
      event('kernel.finish_request', 17, 0.005),
    ];
    expect(timelineGaps(bars, 20).map((g) => [g.label, +g.start.toFixed(3), +g.duration.toFixed(3)])).toEqual([
      ['entering the kernel', 0, 0.2],
      ['reading the body, resolving the controller', 1.2, 0.8],
      ["Nest's guards, interceptors and pipes", 3, 0.5],
      ['in the controller: its own code and awaits', 3.5, 0.5],
      ['in the controller: its own code and awaits', 6, 6],
      ['in the controller: its own code and awaits', 13, 0.5],
      ['the reply after the controller returned, until its first byte', 13.5, 0.5],
      ['after the response was sent, until kernel.terminate', 17.005, 2.995],
    ]);
  });

  it('says "unaccounted" where the profile does not record what ran, and skips holes under the minimum', () => {
    const bars = [event('kernel.request', 0, 1), event('kernel.view', 3, 1), event('kernel.response', 4.001, 1)];
    expect(timelineGaps(bars, 5.001)).toEqual([
      { start: 1, duration: 2, label: 'unaccounted (after kernel.request, before kernel.view)' },
    ]);
  });

  it('treats overlapping steps as one covered stretch', () => {
    const bars = [event('kernel.request', 0, 5), event('kernel.exception', 1, 2), event('kernel.response', 6, 1)];
    expect(timelineGaps(bars, 7).map((g) => g.label)).toEqual([
      'unaccounted (after kernel.request, before kernel.response)',
    ]);
  });
});
