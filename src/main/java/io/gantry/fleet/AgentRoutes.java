package io.gantry.fleet;

import java.util.List;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.webmvc.autoconfigure.WebMvcRegistrations;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.method.HandlerMethod;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.RequestMappingInfo;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerMapping;

import io.gantry.noded.protocol.AgentProtocol;

/**
 * Finds the handler of an agent's poll or report without trying every route. Spring MVC matches a
 * path with a variable by testing it against each of the API's 110 routes, twice a poll (the request
 * and its asynchronous answer): a sixth of a poll's CPU at 3,000 agents polling each second. Every
 * agent calls these routes every few seconds, and no other route can match their paths, so they are
 * tried first, each with Spring's own conditions and its own bookkeeping (path variables, the
 * matched pattern the request metrics are tagged with); any other request, and one these routes do
 * not match after all, goes through Spring's search as before.
 */
@Configuration(proxyBeanMethods = false)
class AgentRoutes {

    /** The routes tried first: an agent calls them every few seconds. */
    static final List<String> HOT = List.of(AgentProtocol.BASE + "/{node}/poll", AgentProtocol.BASE + "/{node}/reports");

    @Bean
    WebMvcRegistrations agentRoutesFirst() {
        return new WebMvcRegistrations() {
            @Override
            public RequestMappingHandlerMapping getRequestMappingHandlerMapping() {
                return new Mapping();
            }
        };
    }

    /** Spring's request mapping, which looks at the agents' routes before searching all of them. */
    static final class Mapping extends RequestMappingHandlerMapping {

        private static final String PREFIX = AgentProtocol.BASE + "/";

        private record Route(RequestMappingInfo info, HandlerMethod handler) {
        }

        private volatile List<Route> hot = List.of();

        @Override
        protected void handlerMethodsInitialized(Map<RequestMappingInfo, HandlerMethod> handlerMethods) {
            super.handlerMethodsInitialized(handlerMethods);
            hot = handlerMethods.entrySet().stream()
                    .filter(e -> e.getKey().getPatternValues().size() == 1
                            && HOT.contains(e.getKey().getPatternValues().iterator().next())
                            && e.getKey().getMethodsCondition().getMethods()
                                    .equals(java.util.Set.of(org.springframework.web.bind.annotation.RequestMethod.POST)))
                    .map(e -> new Route(e.getKey(), e.getValue()))
                    .toList();
        }

        @Override
        protected HandlerMethod lookupHandlerMethod(String lookupPath, HttpServletRequest request) throws Exception {
            if (lookupPath.startsWith(PREFIX) && "POST".equals(request.getMethod())) {
                for (Route route : hot) {
                    RequestMappingInfo match = route.info().getMatchingCondition(request);
                    if (match != null) {
                        request.setAttribute(HandlerMapping.BEST_MATCHING_HANDLER_ATTRIBUTE, route.handler());
                        handleMatch(match, lookupPath, request);
                        return route.handler();
                    }
                }
            }
            return super.lookupHandlerMethod(lookupPath, request);
        }

        /** How many routes are tried first (both, once the controller's routes are registered). */
        int hotRoutes() {
            return hot.size();
        }
    }
}
