import { Module } from '@nestjs/common';
import { ProfilerModule } from '../profiler.module.js';
import { ProfileDigests } from './profile-digests.js';
import { ProfilerMcpController } from './profiler-mcp.controller.js';
import { ProfilerMcpServer } from './profiler-mcp.server.js';

/**
 * The profiler for coding assistants (Model Context Protocol): the HTTP endpoint `/_profiler/mcp`, and the server
 * `npm run profiler:mcp` starts on stdio. Imported by AppModule before ProfilerModule, so that its path is matched
 * before the profile page's `/_profiler/:token`.
 */
@Module({
  imports: [ProfilerModule],
  controllers: [ProfilerMcpController],
  providers: [ProfileDigests, ProfilerMcpServer],
  exports: [ProfilerMcpServer],
})
export class ProfilerMcpModule {}
